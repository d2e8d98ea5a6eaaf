/*
 * tab-control: the host's line into the guest, a daemon on the second serial port (/dev/ttyS1).
 * /init starts it before the shell; it returns once the port is open and raw, and stays behind
 * in the background. The host (the page's worker, the Node host, the build) sends one request
 * per line, `ID REQUEST`, and gets one answer line per request, in order, `ID ANSWER`
 * (src/machine/guest-control.ts); ID is a number of up to 9 digits the host chose, so an
 * answer finds its request even if another one was lost:
 *
 *   fresh SECONDS NANOSECONDS HEX   a restored guest becomes a fresh machine: the host's clock
 *                                   and random seed (tab-fresh.c). The host sends the restored
 *                                   shell its first Enter only after the answer, so before any
 *                                   command runs (guest/README.md, "The shipped state").
 *   winsize ROWS COLS               the terminal's size (1..9999 each); a serial console has no
 *                                   other way to tell. Set on the console (TIOCSWINSZ) when it
 *                                   differs, which sends SIGWINCH to what runs there, at once.
 *   prepare-state                   the build is about to save the shipped state: runs
 *                                   tab-prepare-state (drop caches, zero free memory).
 *   check AS MILLISECONDS BASE64    a lesson's `check:` command, run out of band as root or as
 *                                   the learner, within its time limit (tab-check.c); answered
 *                                   `ok STATUS BASE64-OUTPUT` once it ended, while other
 *                                   requests go on meanwhile (its answer may come after theirs).
 *
 * Answers: `ok` (for prepare-state, `ok ` and its last line of output), or `error REASON`. A
 * line without an ID is answered `0 error ...`.
 *
 * The guest's own lines, unasked: `audit TYPE TEXT`, the kernel's Landlock audit records
 * (tab-audit.c), so the host learns of a kernel refusal from the kernel, not from the terminal.
 * They begin with a letter, so they are never taken for an answer.
 *
 * Why a daemon, and the data on the line: the prompt hook it replaces (`$(tab-prompt)` in PS1)
 * cost every prompt a fork and an exec, ~0.9 M instructions of the guest's interpreted CPU;
 * reading the same requests from the 9p share cost ~0.4 M more than reading them here
 * (docs/performance.md, "The prompt hook and the control line").
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tab-tools.h"

#define PORT "/dev/ttyS1"
/* The shell's terminal: the kernel console (console=ttyS0 in the kernel's command line). */
#define CONSOLE "/dev/ttyS0"
/* The longest request: `check`, a command of 1000 bytes in base64 (`fresh` is under 600). */
#define MAX_LINE CHECK_LINE_MAX

static int port;
/* The ID of the request being answered, with its space ("0 " for a line without one). */
static char answer_id[12] = "0 ";

static void put(const char *text)
{
	size_t left = strlen(text);
	while (left > 0) {
		ssize_t n = write(port, text, left);
		if (n <= 0)
			return;
		text += n;
		left -= (size_t)n;
	}
}

/* One answer line: the request's ID, then TEXT (which ends with its newline). */
static void answer(const char *text)
{
	put(answer_id);
	put(text);
}

static void answer_error(const char *reason)
{
	put(answer_id);
	put("error ");
	put(reason);
	put("\n");
}

/* Runs tab-prepare-state; answers with the last line it printed. */
static void prepare_state(void)
{
	int out[2];
	if (pipe(out) != 0)
		return answer_error("pipe failed");
	pid_t child = fork();
	if (child < 0) {
		close(out[0]);
		close(out[1]);
		return answer_error("fork failed");
	}
	if (child == 0) {
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(out[0]);
		close(out[1]);
		execl("/usr/bin/tab-prepare-state", "tab-prepare-state", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	char text[512], last[256] = "";
	size_t used = 0;
	ssize_t n;
	while ((n = read(out[0], text + used, sizeof text - 1 - used)) > 0) {
		used += (size_t)n;
		text[used] = '\0';
		char *nl;
		while ((nl = strchr(text, '\n')) != NULL) {
			*nl = '\0';
			if (nl > text)
				snprintf(last, sizeof last, "%.255s", text);
			memmove(text, nl + 1, strlen(nl + 1) + 1);
			used = strlen(text);
		}
		if (used == sizeof text - 1)
			used = 0;
	}
	close(out[0]);
	int status;
	while (waitpid(child, &status, 0) < 0)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		put(answer_id);
		put("ok ");
		put(last);
		put("\n");
	} else
		answer_error(last[0] ? last : "tab-prepare-state failed");
}

/* A number of 1..4 digits, 1..9999, ending at a space or the end. */
static int size_field(const char **p, unsigned short *value)
{
	unsigned v = 0;
	int digits = 0;
	while (**p >= '0' && **p <= '9') {
		if (++digits > 4)
			return 0;
		v = v * 10 + (unsigned)(**p - '0');
		(*p)++;
	}
	if (digits == 0 || v == 0)
		return 0;
	*value = (unsigned short)v;
	return 1;
}

static void winsize(const char *args)
{
	unsigned short rows, cols;
	if (!size_field(&args, &rows) || *args++ != ' ' || !size_field(&args, &cols) || *args != '\0')
		return answer_error("winsize is not ROWS COLS (1 to 9999 each)");
	int tty = open(CONSOLE, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (tty < 0)
		return answer_error("cannot open " CONSOLE);
	struct winsize now;
	int ok = ioctl(tty, TIOCGWINSZ, &now) == 0;
	if (ok && (now.ws_row != rows || now.ws_col != cols)) {
		now.ws_row = rows;
		now.ws_col = cols;
		ok = ioctl(tty, TIOCSWINSZ, &now) == 0;
	}
	close(tty);
	if (ok)
		answer("ok\n");
	else
		answer_error("TIOCSWINSZ failed");
}

static void fresh(const char *args)
{
	long long sec, nsec;
	char hex[600];
	int used = 0;
	if (sscanf(args, "%lld %lld %599[0-9a-fA-F]%n", &sec, &nsec, hex, &used) != 3 || args[used] != '\0')
		return answer_error("fresh is not SECONDS NANOSECONDS HEX");
	const char *failed = tab_fresh_apply(sec, nsec, hex);
	memset(hex, 0, sizeof hex);
	if (failed)
		answer_error(failed);
	else
		answer("ok\n");
}

static void request(const char *line)
{
	size_t digits = strspn(line, "0123456789");
	if (digits == 0 || digits > 9 || line[digits] != ' ') {
		strcpy(answer_id, "0 ");
		return answer_error("a request is ID REQUEST");
	}
	memcpy(answer_id, line, digits + 1);
	answer_id[digits + 1] = '\0';
	line += digits + 1;
	if (strncmp(line, "fresh ", 6) == 0)
		fresh(line + 6);
	else if (strncmp(line, "winsize ", 8) == 0)
		winsize(line + 8);
	else if (strcmp(line, "prepare-state") == 0)
		prepare_state();
	else if (strncmp(line, "check ", 6) == 0)
		tab_check_start(answer_id, line + 6, put);
	else
		answer_error("unknown request");
}

/* One audit record on the line, whole: the answer being written, if any, was written whole. */
static void audit_line(const char *type, const char *text)
{
	put("audit ");
	put(type);
	put(" ");
	put(text);
	put("\n");
}

static long long monotonic_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void serve(int audit)
{
	/* When a denial waiting for its SYSCALL record goes without it (-1: none waits). */
	long long audit_due = -1;
	char line[MAX_LINE + 1];
	size_t used = 0;
	int too_long = 0;
	struct pollfd fds[2 + CHECK_SLOTS_MAX] = { { .fd = port, .events = POLLIN }, { .fd = audit, .events = POLLIN } };
	for (;;) {
		char buf[256];
		/* A denial whose SYSCALL record has not come within 0.2 s goes without it. */
		long long now = monotonic_ms();
		if (!tab_audit_pending())
			audit_due = -1;
		else if (audit_due < 0)
			audit_due = now + 200;
		int timeout = audit_due < 0 ? -1 : (int)(audit_due > now ? audit_due - now : 0);
		int checks = tab_check_timeout_ms();
		if (checks >= 0 && (timeout < 0 || checks < timeout))
			timeout = checks;
		int watched = audit >= 0 ? 2 : 1;
		watched += tab_check_poll_fds(fds + watched, CHECK_SLOTS_MAX);
		int ready = poll(fds, (nfds_t)watched, timeout);
		if (ready < 0)
			continue;
		if (audit >= 0 && (fds[1].revents & POLLIN)) {
			tab_audit_read(audit, audit_line);
			audit_due = -1; /* a denial it leaves waiting gets its own 0.2 s */
		} else if (audit_due >= 0 && monotonic_ms() >= audit_due) {
			tab_audit_flush(audit_line, NULL);
		}
		tab_check_service(put);
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t n = read(port, buf, sizeof buf);
		if (n <= 0) {
			usleep(100000);
			continue;
		}
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			if (c == '\r')
				continue;
			if (c != '\n') {
				if (used < MAX_LINE)
					line[used++] = c;
				else
					too_long = 1;
				continue;
			}
			line[used] = '\0';
			if (too_long) {
				strcpy(answer_id, "0 ");
				answer_error("the request is longer than 1600 bytes");
			} else {
				request(line);
			}
			memset(line, 0, used);
			used = 0;
			too_long = 0;
		}
	}
}

int tab_control_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	port = open(PORT, O_RDWR | O_NOCTTY);
	if (port < 0) {
		perror("tab-control: " PORT);
		return 1;
	}
	struct termios raw;
	if (tcgetattr(port, &raw) != 0) {
		perror("tab-control: " PORT);
		return 1;
	}
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(port, TCSANOW, &raw) != 0) {
		perror("tab-control: " PORT);
		return 1;
	}
	/* Audit is on before /init goes on, so every process the shell starts has its audit
	 * context (the SYSCALL record that names a denied process's pid). */
	int audit = tab_audit_open();
	/* Returns to /init only once the port listens, so the host's first request finds it. */
	pid_t child = fork();
	if (child < 0) {
		perror("tab-control: fork");
		return 1;
	}
	if (child > 0) {
		if (audit >= 0)
			close(audit);
		return 0;
	}
	setsid();
	signal(SIGHUP, SIG_IGN);
	/* What a check leaves running is reaped here once its group is killed (tab-check.c). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	if (chdir("/") != 0)
		return 1;
	serve(audit);
	return 0;
}
