/*
 * Makes a guest restored from a saved state a fresh machine (tab-control's `fresh` request).
 *
 * Every visitor restores the same shipped state, so its kernel random pool and its clock are the
 * same for all of them. Before the restored shell's first prompt the host sends its clock
 * (SECONDS NANOSECONDS, Unix time) and 16..256 random bytes from crypto.getRandomValues (HEX).
 * This sets CLOCK_REALTIME, mixes the bytes into the kernel's input pool with RNDADDENTROPY
 * (credited), and forces a reseed of the kernel's CRNG with RNDRESEEDCRNG, so every getrandom()
 * after it (e.g. curl's TLS client randoms and keys) differs from any other restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tab-tools.h"

#define MIN_SEED 16
#define MAX_SEED 256

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

const char *tab_fresh_apply(long long sec, long long nsec, const char *hex)
{
	if (sec < 0 || nsec < 0 || nsec >= 1000000000LL)
		return "the clock is not SECONDS NANOSECONDS";
	size_t digits = strlen(hex);
	if (digits % 2 != 0 || digits < 2 * MIN_SEED || digits > 2 * MAX_SEED)
		return "the seed is not 16 to 256 bytes in hex";
	struct {
		struct rand_pool_info info;
		__u32 room[MAX_SEED / 4];
	} seed;
	int len = 0;
	for (const char *p = hex; *p; p += 2) {
		int hi = hexval(p[0]), lo = hexval(p[1]);
		if (hi < 0 || lo < 0)
			return "the seed is not hex";
		((unsigned char *)seed.info.buf)[len++] = (unsigned char)(hi << 4 | lo);
	}
	const char *failed = NULL;
	struct timespec now = { .tv_sec = (time_t)sec, .tv_nsec = (long)nsec };
	int rnd = -1;
	if (clock_settime(CLOCK_REALTIME, &now) != 0)
		failed = "clock_settime failed";
	else if ((rnd = open("/dev/urandom", O_WRONLY)) < 0)
		failed = "cannot open /dev/urandom";
	else {
		seed.info.entropy_count = len * 8;
		seed.info.buf_size = len;
		if (ioctl(rnd, RNDADDENTROPY, &seed.info) != 0)
			failed = "RNDADDENTROPY failed";
		/* ENODATA: the CRNG was not ready yet; the credited bytes above just made it ready. */
		else if (ioctl(rnd, RNDRESEEDCRNG) != 0 && errno != ENODATA)
			failed = "RNDRESEEDCRNG failed";
	}
	if (rnd >= 0)
		close(rnd);
	memset(&seed, 0, sizeof seed);
	return failed;
}
