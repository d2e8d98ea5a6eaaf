/*
 * tab-audit: the kernel's Landlock audit records, handed to the host on the control line
 * (tab-control.c). Linux 6.15+ (Landlock ABI 7) logs each denial as an audit record,
 * LANDLOCK_ACCESS (1423: the domain, the blocked rights, the path or port), and the first time
 * a domain shows, LANDLOCK_DOMAIN (1424: the program that created it, its pid). With syscall
 * auditing in the kernel (AUDITSYSCALL, which AUDIT brings on x86), the record is followed by
 * the SYSCALL record of the same event (1300: the pid, comm and exe of the process denied).
 *
 * Why the audit netlink socket's read-only multicast group and not /dev/kmsg: the records come
 * typed (nlmsg_type) and whole, and not through printk's rate limit (10 lines in 5 s), which a
 * loop of denials would hit; with no audit daemon registered the kernel still prints each
 * record to its log (`dmesg` shows them), so the guest's own view stays. No auditd: it would
 * take the records from the kernel log and weigh more than this file. docs/decisions/0029.
 *
 * On the control line a denial is one or two lines, never mixed with answers (those begin with
 * a digit):
 *   audit 1424 audit(T:S): domain=… status=allocated mode=enforcing pid=… uid=… exe="…" comm="…"
 *   audit 1423 audit(T:S): domain=… blockers=… path="…" dev="…" ino=… pid=… comm="…" exe="…"
 * the 1424 line only the first time the domain denies; pid, comm and exe on the 1423 line come
 * from its SYSCALL record, when there is one. A domain's end (`status=deallocated`) is a 1424
 * line of its own.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "tab-tools.h"

#define AUDIT_GET_ 1000
#define AUDIT_SET_ 1001
#define AUDIT_SYSCALL_ 1300
#define AUDIT_LANDLOCK_ACCESS_ 1423
#define AUDIT_LANDLOCK_DOMAIN_ 1424
#define AUDIT_STATUS_ENABLED_ 0x0001
#define AUDIT_NLGRP_READLOG_ 1
#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT 9
#endif
/* A line on the control line stays below the host's limit (guest-control.ts, MAX_ANSWER). */
#define MAX_RECORD 900

/* struct audit_status's first fields (include/uapi/linux/audit.h); the kernel takes a prefix. */
struct audit_status_head {
	unsigned int mask, enabled, failure, pid, rate_limit, backlog_limit, lost, backlog;
};

static char access_rec[MAX_RECORD + 1], domain_rec[MAX_RECORD + 1];
static char access_serial[48];

/* "audit(1733.120:42): …" → "1733.120:42" */
static void serial_of(const char *text, char *out, size_t n)
{
	const char *open = strchr(text, '('), *close = strchr(text, ')');
	out[0] = '\0';
	if (open && close && close > open && (size_t)(close - open) < n)
		snprintf(out, n, "%.*s", (int)(close - open - 1), open + 1);
}

/* Appends " KEY=VALUE" of the SYSCALL record's field KEY (a whole word, " KEY=") to out. */
static void take_field(const char *record, const char *key, char *out, size_t n)
{
	char pattern[16];
	snprintf(pattern, sizeof pattern, " %s=", key);
	const char *at = strstr(record, pattern);
	if (!at)
		return;
	size_t len = strcspn(at + 1, " ");
	size_t used = strlen(out);
	if (used + 1 + len < n)
		snprintf(out + used, n - used, " %.*s", (int)len, at + 1);
}

void tab_audit_flush(void (*emit)(const char *type, const char *text), const char *syscall_rec)
{
	if (!access_rec[0])
		return;
	if (domain_rec[0])
		emit("1424", domain_rec);
	if (syscall_rec) {
		take_field(syscall_rec, "pid", access_rec, sizeof access_rec);
		take_field(syscall_rec, "comm", access_rec, sizeof access_rec);
		take_field(syscall_rec, "exe", access_rec, sizeof access_rec);
	}
	emit("1423", access_rec);
	access_rec[0] = domain_rec[0] = access_serial[0] = '\0';
}

int tab_audit_pending(void)
{
	return access_rec[0] != '\0';
}

int tab_audit_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -1;
	struct sockaddr_nl local = { .nl_family = AF_NETLINK, .nl_groups = 1U << (AUDIT_NLGRP_READLOG_ - 1) };
	if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
		close(fd);
		return -1;
	}
	/* Audit starts off unless the kernel's command line says audit=1; Landlock logs only
	 * while it is on. Turned on here, not on the command line, so the machine stays the one
	 * the shipped state records. */
	struct {
		struct nlmsghdr head;
		struct audit_status_head status;
	} set = { 0 };
	set.head.nlmsg_len = sizeof set;
	set.head.nlmsg_type = AUDIT_SET_;
	set.head.nlmsg_flags = NLM_F_REQUEST;
	set.status.mask = AUDIT_STATUS_ENABLED_;
	set.status.enabled = 1;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	if (sendto(fd, &set, sizeof set, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads what the socket holds and hands each Landlock record on (grouped as said above). */
void tab_audit_read(int fd, void (*emit)(const char *type, const char *text))
{
	char buf[8192] __attribute__((aligned(4)));
	ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
	if (n <= 0)
		return;
	/* Walked by hand, not with NLMSG_NEXT: the kernel's audit messages are not padded to
	 * NLMSG_ALIGN, so the remaining length goes below zero after the last one. */
	for (long left = n, at = 0; left >= (long)NLMSG_HDRLEN; ) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + at);
		if (h->nlmsg_len < NLMSG_HDRLEN || (long)h->nlmsg_len > left)
			break;
		long step = (long)NLMSG_ALIGN(h->nlmsg_len);
		left -= step;
		at += step;
		int type = h->nlmsg_type;
		if (type != AUDIT_LANDLOCK_ACCESS_ && type != AUDIT_LANDLOCK_DOMAIN_ && type != AUDIT_SYSCALL_)
			continue;
		char text[MAX_RECORD + 1], serial[48];
		size_t len = h->nlmsg_len - NLMSG_HDRLEN;
		if (len > MAX_RECORD)
			len = MAX_RECORD;
		memcpy(text, NLMSG_DATA(h), len);
		text[len] = '\0';
		for (char *c = text; *c; c++) /* one line each; the kernel escapes untrusted strings */
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		serial_of(text, serial, sizeof serial);
		if (type == AUDIT_LANDLOCK_ACCESS_) {
			tab_audit_flush(emit, NULL);
			snprintf(access_rec, sizeof access_rec, "%s", text);
			snprintf(access_serial, sizeof access_serial, "%s", serial);
		} else if (type == AUDIT_LANDLOCK_DOMAIN_) {
			if (access_rec[0] && strcmp(serial, access_serial) == 0 && !domain_rec[0])
				snprintf(domain_rec, sizeof domain_rec, "%s", text);
			else
				emit("1424", text);
		} else if (access_rec[0] && strcmp(serial, access_serial) == 0) {
			tab_audit_flush(emit, text);
		}
	}
}
