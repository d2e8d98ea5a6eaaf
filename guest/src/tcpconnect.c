/*
 * tcpconnect: try one raw TCP connect() and report what the kernel said.
 *
 *   tcpconnect [-t SECONDS] ADDR PORT
 *
 * ADDR is an IPv4 literal (no DNS: this is the "connect() straight to the internet,
 * bypassing the proxy" probe). Prints exactly one line on stdout:
 *
 *   tcpconnect: dst=ADDR:PORT result=RESULT errno=N
 *
 * RESULT is "ok" (errno=0) or the errno name (EACCES, ECONNREFUSED, ETIMEDOUT, ...).
 * Under llrun without --connect PORT, Landlock makes connect() fail with EACCES before
 * any packet leaves. The timeout (default 2 s) turns a silent network into ETIMEDOUT.
 * Exit status: 0 connected, 1 any failure, 2 usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tab-tools.h"

/*
 * The errno names socket(), fcntl(), connect() and poll() can give. glibc has
 * strerrorname_np(); musl, which the guest's programs link, has no such table.
 */
static const char *errno_name(int err)
{
#define NAME(e) case e: return #e
	switch (err) {
	NAME(EACCES); NAME(EPERM); NAME(ECONNREFUSED); NAME(ETIMEDOUT); NAME(ENETUNREACH);
	NAME(EHOSTUNREACH); NAME(ECONNRESET); NAME(ENETDOWN); NAME(EHOSTDOWN); NAME(EADDRINUSE);
	NAME(EADDRNOTAVAIL); NAME(EAFNOSUPPORT); NAME(EAGAIN); NAME(EALREADY); NAME(EBADF);
	NAME(EFAULT); NAME(EINPROGRESS); NAME(EINTR); NAME(EISCONN); NAME(ENOTSOCK);
	NAME(EPROTOTYPE); NAME(EPROTONOSUPPORT); NAME(ENOBUFS); NAME(ENOMEM); NAME(EMFILE);
	NAME(ENFILE); NAME(EINVAL);
	}
#undef NAME
	return "EUNKNOWN";
}

static int report(const char *addr, const char *port, int err)
{
	const char *name = err ? errno_name(err) : "ok";
	printf("tcpconnect: dst=%s:%s result=%s errno=%d\n", addr, port, name, err);
	fflush(stdout);
	return err ? 1 : 0;
}

static void usage(void)
{
	fputs("usage: tcpconnect [-t SECONDS] ADDR PORT\n"
	      "Try a TCP connect() to IPv4 ADDR:PORT; print one line:\n"
	      "  tcpconnect: dst=ADDR:PORT result=ok|ERRNAME errno=N\n"
	      "exit 0 connected, 1 failed, 2 usage\n", stderr);
	exit(2);
}

int tcpconnect_main(int argc, char **argv)
{
	double timeout = 2.0;
	int i = 1;
	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) usage();
	if (i + 1 < argc && !strcmp(argv[i], "-t")) {
		char *end;
		timeout = strtod(argv[i + 1], &end);
		if (*end || timeout <= 0 || timeout > 3600) usage();
		i += 2;
	}
	if (argc - i != 2) usage();
	const char *addr = argv[i], *port = argv[i + 1];
	char *end;
	long p = strtol(port, &end, 10);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	if (*end || end == port || p < 1 || p > 65535 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcpconnect: ADDR must be an IPv4 literal and PORT 1-65535\n");
		usage();
	}
	sa.sin_port = htons((unsigned short)p);

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) return report(addr, port, errno);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) return report(addr, port, 0);
	if (errno != EINPROGRESS) return report(addr, port, errno);

	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int r;
	do r = poll(&pfd, 1, (int)(timeout * 1000)); while (r < 0 && errno == EINTR);
	if (r < 0) return report(addr, port, errno);
	if (r == 0) return report(addr, port, ETIMEDOUT);
	int err = 0;
	socklen_t len = sizeof err;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
	close(fd);
	return report(addr, port, err);
}
