/*
 * A lesson's `check:` commands, run for the host by tab-control, out of band: not in the
 * learner's shell and never on the learner's terminal (docs/lessons.md, "check"). The request
 *
 *   check AS MILLISECONDS BASE64
 *
 * runs the command BASE64 decodes to with `/bin/sh -c`, in a session and process group of its
 * own with no controlling terminal, stdin from /dev/null, stdout and stderr into one pipe:
 *
 *   AS = root      as root, in /, with PATH and HOME=/root (what a trainer's verify script sees)
 *   AS = learner   with the user, groups and working directory of the console's login shell
 *                  (the learner's shell on ttyS0), so a relative path means where the learner is
 *
 * MILLISECONDS (1..60000) is its time limit: past it the whole process group is killed. Once
 * the shell exits, what it left running in its group is killed too (a check leaves nothing
 * behind). The answer is `ok STATUS BASE64`: STATUS is the exit status (128 + N when killed by
 * signal N) or `timeout`, BASE64 the first CHECK_OUTPUT_MAX bytes of the output. Checks run
 * beside the control line's other requests (a check waiting on its time limit holds up no
 * terminal resize and no audit record), at most CHECK_SLOTS at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tab-tools.h"

#define CHECK_SLOTS CHECK_SLOTS_MAX
#define CHECK_MAX_MS 60000
/* The console's device (ttyS0, major 4 minor 64) as /proc/PID/stat's tty_nr gives it. */
#define CONSOLE_TTY_NR ((4 << 8) | 64)

struct check {
	int used;
	char id[12]; /* the request's ID with its space */
	pid_t pid;
	int out; /* the read end of its output pipe, -1 once at EOF */
	long long deadline_ms;
	int exited;
	int status;
	size_t len;
	char output[CHECK_OUTPUT_MAX];
};

static struct check slots[CHECK_SLOTS];

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decodes padded base64 into OUT (at most MAX bytes with its NUL); -1 when it is not base64 or holds a NUL. */
static int b64_decode(const char *in, char *out, size_t max)
{
	size_t n = strlen(in), o = 0;
	if (n == 0 || n % 4 != 0)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		for (int k = 0; k < 4; k++) {
			v[k] = in[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64_value(in[i + k]);
			if (v[k] < 0)
				return -1;
		}
		if (in[i + 2] == '=' && in[i + 3] != '=')
			return -1;
		unsigned triple = (unsigned)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
		int bytes = in[i + 2] == '=' ? 1 : in[i + 3] == '=' ? 2 : 3;
		for (int k = 0; k < bytes; k++) {
			if (o + 1 >= max)
				return -1;
			char c = (char)(triple >> (16 - 8 * k) & 0xff);
			if (c == '\0')
				return -1;
			out[o++] = c;
		}
	}
	out[o] = '\0';
	return (int)o;
}

static void b64_put(void (*put)(const char *), const unsigned char *in, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char quad[5] = "";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
		quad[0] = abc[v >> 18 & 63];
		quad[1] = abc[v >> 12 & 63];
		quad[2] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		quad[3] = i + 2 < n ? abc[v & 63] : '=';
		put(quad);
	}
}

/* The console's login shell: the session leader whose controlling terminal is ttyS0. */
static pid_t learner_shell(void)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return -1;
	pid_t found = -1;
	struct dirent *e;
	while (found < 0 && (e = readdir(proc)) != NULL) {
		char path[300], stat[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, stat, sizeof stat - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		char *after = strrchr(stat, ')');
		int pid = atoi(e->d_name), ppid, pgrp, session, tty;
		char state;
		if (after && sscanf(after + 1, " %c %d %d %d %d", &state, &ppid, &pgrp, &session, &tty) == 5 &&
		    session == pid && tty == CONSOLE_TTY_NR)
			found = pid;
	}
	closedir(proc);
	return found;
}

/* In the child: takes on the learner shell's groups, user and working directory. Returns what failed, or NULL. */
static const char *become_learner(pid_t shell)
{
	char path[64], line[256];
	unsigned uid = 0, gid = 0;
	gid_t groups[64];
	int ngroups = 0, have = 0;
	snprintf(path, sizeof path, "/proc/%d/status", (int)shell);
	FILE *f = fopen(path, "r");
	if (!f)
		return "the learner's shell is gone";
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "Uid: %*u %u", &uid) == 1)
			have |= 1;
		else if (sscanf(line, "Gid: %*u %u", &gid) == 1)
			have |= 2;
		else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;
			while (ngroups < 64) {
				unsigned long g = strtoul(p, &end, 10);
				if (end == p)
					break;
				groups[ngroups++] = (gid_t)g;
				p = end;
			}
		}
	}
	fclose(f);
	if (have != 3)
		return "cannot read the learner's user";
	snprintf(path, sizeof path, "/proc/%d/cwd", (int)shell);
	if (chdir(path) != 0 && chdir("/") != 0)
		return "cannot enter the learner's directory";
	if (setgroups((size_t)ngroups, groups) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
		return "cannot take the learner's user";
	return NULL;
}

static struct check *free_slot(void)
{
	for (int i = 0; i < CHECK_SLOTS; i++)
		if (!slots[i].used)
			return &slots[i];
	return NULL;
}

void tab_check_start(const char *id, const char *args, void (*put)(const char *))
{
	char as[16], b64[CHECK_LINE_MAX], command[CHECK_COMMAND_MAX + 1];
	long ms;
	int used = 0;
	const char *failed = NULL;
	if (sscanf(args, "%15s %ld %1599s%n", as, &ms, b64, &used) != 3 || args[used] != '\0')
		failed = "check is not AS MILLISECONDS BASE64";
	else if (strcmp(as, "root") != 0 && strcmp(as, "learner") != 0)
		failed = "check runs as root or learner";
	else if (ms < 1 || ms > CHECK_MAX_MS)
		failed = "a check's time limit is 1 to 60000 ms";
	else if (b64_decode(b64, command, sizeof command) <= 0)
		failed = "the check's command is not base64 of at most 1000 bytes without NUL";
	pid_t shell = -1;
	if (!failed && strcmp(as, "learner") == 0 && (shell = learner_shell()) < 0)
		failed = "no learner's shell on the console";
	struct check *c = failed ? NULL : free_slot();
	if (!failed && !c)
		failed = "too many checks running";
	int pipefd[2];
	if (!failed && pipe2(pipefd, O_CLOEXEC) != 0)
		failed = "pipe failed";
	if (failed) {
		put(id);
		put("error ");
		put(failed);
		put("\n");
		return;
	}
	pid_t child = fork();
	if (child < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		put(id);
		put("error fork failed\n");
		return;
	}
	if (child == 0) {
		setsid();
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		const char *why = shell > 0 ? become_learner(shell) : (chdir("/") == 0 ? NULL : "chdir / failed");
		if (why) {
			dprintf(2, "tab-control: %s\n", why);
			_exit(126);
		}
		if (shell <= 0)
			setenv("HOME", "/root", 1);
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	memset(c, 0, sizeof *c);
	c->used = 1;
	snprintf(c->id, sizeof c->id, "%s", id);
	c->pid = child;
	c->out = pipefd[0];
	c->deadline_ms = now_ms() + ms;
}

static void finish(struct check *c, int timed_out, void (*put)(const char *))
{
	/* What the check left running in its group (its session) goes with it. */
	kill(-c->pid, SIGKILL);
	if (!c->exited)
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
	if (c->out >= 0)
		close(c->out);
	char status[16];
	if (timed_out)
		snprintf(status, sizeof status, "timeout");
	else if (WIFSIGNALED(c->status))
		snprintf(status, sizeof status, "%d", 128 + WTERMSIG(c->status));
	else
		snprintf(status, sizeof status, "%d", WEXITSTATUS(c->status));
	put(c->id);
	put("ok ");
	put(status);
	put(" ");
	b64_put(put, (const unsigned char *)c->output, c->len);
	put("\n");
	c->used = 0;
}

static void drain(struct check *c)
{
	for (;;) {
		char buf[256];
		ssize_t n = read(c->out, buf, sizeof buf);
		if (n > 0) {
			size_t keep = (size_t)n;
			if (keep > CHECK_OUTPUT_MAX - c->len)
				keep = CHECK_OUTPUT_MAX - c->len;
			memcpy(c->output + c->len, buf, keep);
			c->len += keep;
			continue;
		}
		if (n == 0) {
			close(c->out);
			c->out = -1;
		}
		return;
	}
}

int tab_check_poll_fds(struct pollfd *fds, int max)
{
	int n = 0;
	for (int i = 0; i < CHECK_SLOTS && n < max; i++)
		if (slots[i].used && slots[i].out >= 0)
			fds[n++] = (struct pollfd){ .fd = slots[i].out, .events = POLLIN };
	return n;
}

int tab_check_timeout_ms(void)
{
	long long now = now_ms(), soonest = -1;
	for (int i = 0; i < CHECK_SLOTS; i++) {
		if (!slots[i].used)
			continue;
		long long left = slots[i].deadline_ms - now;
		if (left < 0)
			left = 0;
		/* Its output is closed but its shell not yet reaped (exit closes files first): look again soon. */
		if (slots[i].out < 0 && !slots[i].exited && left > 20)
			left = 20;
		if (soonest < 0 || left < soonest)
			soonest = left;
	}
	return soonest > 60000 ? 60000 : (int)soonest;
}

void tab_check_service(void (*put)(const char *))
{
	/* Reaps every exited child: a check's shell (its status kept), and what a check left running
	 * once its group was killed (tab-control is their subreaper, so none stays a zombie). */
	pid_t pid;
	int status;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < CHECK_SLOTS; i++)
			if (slots[i].used && slots[i].pid == pid) {
				slots[i].exited = 1;
				slots[i].status = status;
			}
	long long now = now_ms();
	for (int i = 0; i < CHECK_SLOTS; i++) {
		struct check *c = &slots[i];
		if (!c->used)
			continue;
		if (c->out >= 0)
			drain(c);
		if (c->exited) {
			/* The shell is done: what it wrote is in the pipe, unless something it left holds it open. */
			if (c->out >= 0)
				drain(c);
			finish(c, 0, put);
		} else if (now >= c->deadline_ms) {
			finish(c, 1, put);
		}
	}
}
