/*
 * llrun: run a command under a Landlock ruleset built from flags.
 *
 *   llrun [options] [--] CMD [ARGS...]
 *   llrun --abi
 *
 * Part of the "Linux in a tab" guest image (guest/README.md documents flags, exit codes
 * and the ruleset line). Built with `gcc -m32 -static`. The Landlock UAPI is defined here
 * because the build host's (Debian 12) headers predate Landlock network rules and scopes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tab-tools.h"

/* ---- Landlock UAPI (include/uapi/linux/landlock.h; the rights of ABI 6, the log flags of ABI 7) ---- */
#if defined(__i386__)
#define NR_landlock_create_ruleset 444
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446
#else /* x86_64, arm64 and other archs using the generic table share these numbers */
#define NR_landlock_create_ruleset 444
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446
#endif

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};
struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)     /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */
/* landlock_restrict_self() flags (ABI 7): which denials the kernel logs as audit records */
#define LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)

#define FS_ABI1 ((1ULL << 13) - 1)
#define FS_RO (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
/* rights that make sense on a non-directory (others give EINVAL on a file) */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

/* ---- exit codes (documented in --help and guest/README.md) ---- */
#define EX_LL_USAGE 64
#define EX_LL_UNSUPPORTED 65
#define EX_LL_STRICT 66
#define EX_LL_RULESET 67
#define EX_LL_NOEXEC 126
#define EX_LL_NOTFOUND 127

#define MAXN 64

static const char usage_text[] =
"usage: llrun [options] [--] CMD [ARGS...]\n"
"       llrun --abi\n"
"Run CMD under a Landlock ruleset (no_new_privs is set first).\n"
"\n"
"  --ro PATH             allow read + execute beneath PATH (repeatable)\n"
"  --rw PATH             allow all file rights beneath PATH (repeatable)\n"
"                        (no --ro/--rw at all: the filesystem is not restricted)\n"
"  --connect PORT        allow TCP connect() to PORT (repeatable); TCP connect is\n"
"                        always handled, so without --connect every connect is denied\n"
"  --bind PORT           allow TCP bind() to PORT (repeatable); without --bind, bind\n"
"                        is not restricted\n"
"  --scope-abstract-unix deny connecting to abstract unix sockets outside the sandbox\n"
"  --scope-signal        deny signals to processes outside the sandbox\n"
"  --strict              refuse to run if the kernel lacks a requested right\n"
"                        (default: best effort, each dropped right named on stderr)\n"
"  --abi                 print the kernel's Landlock ABI version (0 if none) and exit\n"
"  --no-audit            do not ask the kernel to log CMD's denials (see below)\n"
"  -h, --help            this text\n"
"\n"
"Audit (Landlock ABI 7 and later): llrun passes LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON\n"
"to landlock_restrict_self, so the kernel logs every denial of CMD and of what it runs\n"
"as an audit record (LANDLOCK_ACCESS, and LANDLOCK_DOMAIN the first time), and leaves\n"
"same-exec logging on (no LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF): a denial of llrun's\n"
"own exec of CMD is logged too. The page shows each record as a kernel decision. With\n"
"--no-audit llrun passes no flag: the kernel's default, which logs only llrun's own\n"
"denials before exec.\n"
"\n"
"Before exec, one line on stderr describes the applied ruleset:\n"
"  llrun: ruleset abi=N fs_ro=LIST fs_rw=LIST connect=LIST bind=LIST scope=LIST dropped=LIST\n"
"LIST is comma-separated and may be empty (= nothing allowed); '*' means not restricted.\n"
"Paths are percent-encoded (%XX) for ',', ' ', '=', '%' and non-printable bytes.\n"
"\n"
"Exit status: CMD's own status once it runs; otherwise\n"
"  64 usage error           65 Landlock unsupported by the kernel\n"
"  66 --strict refusal      67 ruleset error (create/add_rule/restrict_self/prctl)\n"
"  126 CMD not executable (e.g. denied by the ruleset)   127 CMD not found\n"
"llrun's own failures always print a line starting 'llrun: error:'.\n";

static void die(int code, const char *fmt, const char *arg)
{
	fprintf(stderr, "llrun: error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(code);
}

static int ll_abi(void)
{
	long r = syscall(NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return r < 0 ? 0 : (int)r;
}

static int parse_port(const char *s)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535)
		die(EX_LL_USAGE, "bad port '%s' (0-65535)", s);
	return (int)v;
}

/* append s to buf, percent-encoding the separator and unsafe bytes */
static void enc_append(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf);
	for (; *s && l + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= 0x20 || c >= 0x7f || c == ',' || c == '=' || c == '%')
			l += (size_t)snprintf(buf + l, n - l, "%%%02X", c);
		else
			buf[l++] = (char)c, buf[l] = 0;
	}
}

static void list_add(char *buf, size_t n, const char *item, int encode)
{
	if (buf[0])
		strncat(buf, ",", n - strlen(buf) - 1);
	if (encode)
		enc_append(buf, n, item);
	else
		strncat(buf, item, n - strlen(buf) - 1);
}

int llrun_main(int argc, char **argv)
{
	const char *ro[MAXN], *rw[MAXN];
	int connect_ports[MAXN], bind_ports[MAXN];
	int nro = 0, nrw = 0, nconn = 0, nbind = 0;
	int scope_unix = 0, scope_signal = 0, strict = 0, want_abi = 0, audit = 1;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char name[32];
		const char *eq;
		if (strcmp(a, "--") == 0) { i++; break; }
		if (a[0] != '-') break;
		eq = strchr(a, '=');
		if (eq && (size_t)(eq - a) < sizeof name) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = 0;
			val = eq + 1;
		} else {
			snprintf(name, sizeof name, "%s", a);
		}
		int takes = !strcmp(name, "--ro") || !strcmp(name, "--rw") ||
			    !strcmp(name, "--connect") || !strcmp(name, "--bind");
		if (takes && !val) {
			if (i + 1 >= argc) die(EX_LL_USAGE, "%s needs a value (see llrun --help)", name);
			val = argv[++i];
		} else if (!takes && val) {
			die(EX_LL_USAGE, "%s takes no value", name);
		}
		if (!strcmp(name, "--ro")) { if (nro == MAXN) die(EX_LL_USAGE, "too many %s", name); ro[nro++] = val; }
		else if (!strcmp(name, "--rw")) { if (nrw == MAXN) die(EX_LL_USAGE, "too many %s", name); rw[nrw++] = val; }
		else if (!strcmp(name, "--connect")) { if (nconn == MAXN) die(EX_LL_USAGE, "too many %s", name); connect_ports[nconn++] = parse_port(val); }
		else if (!strcmp(name, "--bind")) { if (nbind == MAXN) die(EX_LL_USAGE, "too many %s", name); bind_ports[nbind++] = parse_port(val); }
		else if (!strcmp(name, "--scope-abstract-unix")) scope_unix = 1;
		else if (!strcmp(name, "--scope-signal")) scope_signal = 1;
		else if (!strcmp(name, "--strict")) strict = 1;
		else if (!strcmp(name, "--abi")) want_abi = 1;
		else if (!strcmp(name, "--no-audit")) audit = 0;
		else if (!strcmp(name, "-h") || !strcmp(name, "--help")) { fputs(usage_text, stdout); return 0; }
		else die(EX_LL_USAGE, "unknown option '%s' (see llrun --help)", a);
	}

	int abi = ll_abi();
	if (want_abi) {
		printf("%d\n", abi);
		return abi > 0 ? 0 : EX_LL_UNSUPPORTED;
	}
	if (i >= argc) {
		fputs(usage_text, stderr);
		return EX_LL_USAGE;
	}
	if (abi <= 0)
		die(EX_LL_UNSUPPORTED, "Landlock is not supported or not enabled by this kernel (%s)",
		    strerror(errno));

	/* ---- what the kernel can do, what was asked, what must be dropped ---- */
	uint64_t fs_all = FS_ABI1;
	if (abi >= 2) fs_all |= FS_REFER;
	if (abi >= 3) fs_all |= FS_TRUNCATE;
	if (abi >= 5) fs_all |= FS_IOCTL_DEV;
	int fs_on = (nro + nrw) > 0;
	int net_ok = abi >= 4, scope_ok = abi >= 6;
	char dropped[256] = "";
	if (fs_on && abi < 2) list_add(dropped, sizeof dropped, "fs.refer", 0);
	if (fs_on && abi < 3) list_add(dropped, sizeof dropped, "fs.truncate", 0);
	if (fs_on && abi < 5) list_add(dropped, sizeof dropped, "fs.ioctl_dev", 0);
	if (!net_ok) list_add(dropped, sizeof dropped, "net.connect_tcp", 0);
	if (!net_ok && nbind) list_add(dropped, sizeof dropped, "net.bind_tcp", 0);
	if (!scope_ok && scope_unix) list_add(dropped, sizeof dropped, "scope.abstract_unix", 0);
	if (!scope_ok && scope_signal) list_add(dropped, sizeof dropped, "scope.signal", 0);
	if (dropped[0]) {
		if (strict) {
			fprintf(stderr, "llrun: error: --strict: kernel Landlock ABI %d lacks: %s\n", abi, dropped);
			return EX_LL_STRICT;
		}
		char *save = NULL, tmp[256];
		snprintf(tmp, sizeof tmp, "%s", dropped);
		for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save))
			fprintf(stderr, "llrun: warning: Landlock ABI %d cannot restrict %s; dropped (not enforced)\n", abi, t);
	}

	struct ll_ruleset_attr attr = {0};
	size_t attr_size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
	attr.handled_access_fs = fs_on ? fs_all : 0;
	if (net_ok) attr.handled_access_net = NET_CONNECT_TCP | (nbind ? NET_BIND_TCP : 0);
	if (scope_ok) attr.scoped = (scope_unix ? SCOPE_ABSTRACT_UNIX : 0) | (scope_signal ? SCOPE_SIGNAL : 0);
	if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped)
		/* nothing to enforce at all (ABI < 4, no fs flags): still refuse silently doing nothing */
		die(EX_LL_STRICT, "%s", "nothing this kernel can enforce was requested; refusing to run unconfined");
	int rfd = (int)syscall(NR_landlock_create_ruleset, &attr, attr_size, 0);
	if (rfd < 0)
		die(EX_LL_RULESET, "landlock_create_ruleset: %s", strerror(errno));

	/* ---- filesystem rules ---- */
	char fs_ro[1024] = "", fs_rw[1024] = "";
	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? nrw : nro;
		const char **paths = pass ? rw : ro;
		for (int k = 0; k < n; k++) {
			struct stat st;
			int fd = open(paths[k], O_PATH | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) < 0) {
				fprintf(stderr, "llrun: warning: %s %s: %s; skipped\n", pass ? "--rw" : "--ro",
					paths[k], strerror(errno));
				if (fd >= 0) close(fd);
				continue;
			}
			struct ll_path_beneath_attr pb;
			pb.allowed_access = (pass ? fs_all : FS_RO) & fs_all;
			if (!S_ISDIR(st.st_mode)) pb.allowed_access &= FS_FILE_RIGHTS;
			pb.parent_fd = fd;
			if (syscall(NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
				die(EX_LL_RULESET, "landlock_add_rule(path): %s", strerror(errno));
			close(fd);
			list_add(pass ? fs_rw : fs_ro, sizeof fs_ro, paths[k], 1);
		}
	}

	/* ---- network rules ---- */
	char conn[512] = "", bind_s[512] = "", num[16];
	for (int pass = 0; pass < 2 && net_ok; pass++) {
		int n = pass ? nbind : nconn;
		int *ports = pass ? bind_ports : connect_ports;
		for (int k = 0; k < n; k++) {
			struct ll_net_port_attr np = { pass ? NET_BIND_TCP : NET_CONNECT_TCP, (uint64_t)ports[k] };
			if (syscall(NR_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np, 0) < 0)
				die(EX_LL_RULESET, "landlock_add_rule(port): %s", strerror(errno));
			snprintf(num, sizeof num, "%d", ports[k]);
			list_add(pass ? bind_s : conn, sizeof conn, num, 0);
		}
	}

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EX_LL_RULESET, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
	/* The command runs after an exec, whose denials the kernel does not log by default. */
	unsigned restrict_flags = (audit && abi >= 7) ? LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
	if (syscall(NR_landlock_restrict_self, rfd, restrict_flags) < 0)
		die(EX_LL_RULESET, "landlock_restrict_self: %s", strerror(errno));
	close(rfd);

	char scope[64] = "";
	if (attr.scoped & SCOPE_ABSTRACT_UNIX) list_add(scope, sizeof scope, "abstract-unix", 0);
	if (attr.scoped & SCOPE_SIGNAL) list_add(scope, sizeof scope, "signal", 0);
	fprintf(stderr, "llrun: ruleset abi=%d fs_ro=%s fs_rw=%s connect=%s bind=%s scope=%s dropped=%s\n",
		abi, fs_on ? fs_ro : "*", fs_on ? fs_rw : "*", net_ok ? conn : "*",
		(net_ok && nbind) ? bind_s : "*", scope, dropped);
	fflush(stderr);

	execvp(argv[i], &argv[i]);
	int e = errno;
	fprintf(stderr, "llrun: error: exec %s: %s\n", argv[i], strerror(e));
	return (e == ENOENT || e == ENOTDIR) ? EX_LL_NOTFOUND : EX_LL_NOEXEC;
}
