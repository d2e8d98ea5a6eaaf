/*
 * tab-prompt: the prompt hook. /etc/profile's PS1 runs `$(tab-prompt)` before every prompt; it
 * prints nothing. It does what the page (or the build) left in its share, /mnt/tab:
 *
 * - fresh:         a restored guest becomes a fresh machine (its clock, its random pool), before
 *                  the restored shell's first prompt shows, so before any command runs
 *                  (tab-fresh.c; guest/README.md, "The shipped state").
 * - prepare-state: the build is about to save the shipped state: runs tab-prepare-state (drop
 *                  caches, zero free memory), its output in prepare-state.log, and deletes the
 *                  request once that succeeded.
 * - winsize:       "ROWS COLS", the terminal's size; a serial console has no other way to tell
 *                  the guest. Applied to the terminal on stdin when it differs.
 *
 * It is one process and no shell (it was a shell script running tab-fresh and `stty` twice):
 * a prompt costs the guest's interpreted CPU a fork and this exec, and the restored guest's
 * first prompt, which every first visit waits for, a third of what it did (docs/performance.md,
 * "The restored guest's first prompt").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tab-tools.h"

#define SHARE "/mnt/tab"

static void prepare_state(void)
{
	pid_t child = fork();
	if (child < 0)
		return;
	if (child == 0) {
		int log = open(SHARE "/prepare-state.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (log >= 0) {
			dup2(log, 1);
			dup2(log, 2);
			close(log);
		}
		execl("/usr/bin/tab-prepare-state", "tab-prepare-state", (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(child, &status, 0) < 0)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		unlink(SHARE "/prepare-state");
}

/* "ROWS COLS" with digits only, each 1..9999; anything else is ignored. */
static int read_size(unsigned short *rows, unsigned short *cols)
{
	char text[32];
	int fd = open(SHARE "/winsize", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	unsigned value[2] = { 0, 0 };
	int field = 0, digits = 0;
	for (const char *p = text; *p && *p != '\n'; p++) {
		if (*p >= '0' && *p <= '9') {
			if (++digits > 4)
				return 0;
			value[field] = value[field] * 10 + (unsigned)(*p - '0');
		} else if (*p == ' ' && field == 0 && digits > 0) {
			field = 1;
			digits = 0;
		} else {
			return 0;
		}
	}
	if (field != 1 || digits == 0 || value[0] == 0 || value[1] == 0)
		return 0;
	*rows = (unsigned short)value[0];
	*cols = (unsigned short)value[1];
	return 1;
}

static void apply_size(void)
{
	unsigned short rows, cols;
	struct winsize now;
	if (!read_size(&rows, &cols) || ioctl(0, TIOCGWINSZ, &now) != 0)
		return;
	if (now.ws_row == rows && now.ws_col == cols)
		return;
	now.ws_row = rows;
	now.ws_col = cols;
	ioctl(0, TIOCSWINSZ, &now);
}

int tab_prompt_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (access(SHARE "/fresh", F_OK) == 0)
		tab_fresh_apply(SHARE "/fresh", 1);
	if (access(SHARE "/prepare-state", F_OK) == 0)
		prepare_state();
	apply_size();
	return 0;
}
