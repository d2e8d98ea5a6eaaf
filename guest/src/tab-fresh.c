/*
 * tab-fresh: make a guest restored from a saved state a fresh machine.
 *
 *   tab-fresh FILE
 *
 * Every visitor restores the same shipped state, so its kernel random pool and its clock
 * are the same for all of them. The page writes FILE into its share before the first
 * prompt of a restored guest:
 *
 *   line 1: SECONDS NANOSECONDS   the page's clock (Unix time)
 *   line 2: HEX                   16..256 random bytes from the page's crypto.getRandomValues
 *
 * tab-fresh sets CLOCK_REALTIME, mixes the bytes into the kernel's input pool with
 * RNDADDENTROPY (credited), forces a reseed of the kernel's CRNG with RNDRESEEDCRNG (so
 * every getrandom() after it, e.g. OpenSSL's seeding in curl, differs from any other
 * restore), and deletes FILE: a deleted FILE is how the page knows it was applied. It
 * prints nothing on success; on failure it prints one line on stderr and leaves FILE in place.
 * Exit status: 0 applied, 1 failed, 2 usage error. The prompt hook (tab-prompt.c) applies the
 * page's request the same way, in its own process (tab_fresh_apply).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tab-tools.h"

#define MAX_SEED 256

static int quiet_failures;

static int fail(const char *what)
{
	if (!quiet_failures)
		fprintf(stderr, "tab-fresh: %s: %s\n", what, strerror(errno));
	return 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tab_fresh_main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tab-fresh FILE\n");
		return 2;
	}
	return tab_fresh_apply(argv[1], 0);
}

int tab_fresh_apply(const char *file, int quiet)
{
	quiet_failures = quiet;
	char text[2 * MAX_SEED + 128];
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		return fail(file);
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n < 0)
		return fail(file);
	text[n] = '\0';

	long long sec, nsec;
	int used = 0;
	if (sscanf(text, "%lld %lld\n%n", &sec, &nsec, &used) != 2 || used == 0 || nsec < 0 || nsec >= 1000000000LL) {
		errno = EINVAL;
		return fail("line 1 is not 'SECONDS NANOSECONDS'");
	}
	unsigned char bytes[MAX_SEED];
	int len = 0;
	const char *p = text + used;
	while (hexval(p[0]) >= 0 && hexval(p[1]) >= 0 && len < MAX_SEED) {
		bytes[len++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
	}
	if (len < 16) {
		errno = EINVAL;
		return fail("line 2 holds fewer than 16 random bytes");
	}

	struct timespec now = { .tv_sec = (time_t)sec, .tv_nsec = (long)nsec };
	if (clock_settime(CLOCK_REALTIME, &now) != 0)
		return fail("clock_settime");

	int rnd = open("/dev/urandom", O_WRONLY);
	if (rnd < 0)
		return fail("/dev/urandom");
	struct {
		struct rand_pool_info info;
		__u32 room[MAX_SEED / 4];
	} seed;
	seed.info.entropy_count = len * 8;
	seed.info.buf_size = len;
	memcpy(seed.info.buf, bytes, len);
	if (ioctl(rnd, RNDADDENTROPY, &seed.info) != 0)
		return fail("RNDADDENTROPY");
	/* ENODATA: the CRNG was not ready yet; the credited bytes above just made it ready. */
	if (ioctl(rnd, RNDRESEEDCRNG) != 0 && errno != ENODATA)
		return fail("RNDRESEEDCRNG");
	close(rnd);
	memset(&seed, 0, sizeof seed);
	memset(bytes, 0, sizeof bytes);
	if (unlink(file) != 0)
		return fail("unlink");
	return 0;
}
