/*
 * The guest's own small programs, linked into one static program (tab-tools.c): each carried
 * its own ~0.7 MB copy of static glibc, and every copy is in every restored guest's memory
 * (guest/README.md, "One program for the small tools"). /usr/bin/NAME is a link to it; it runs
 * the tool its name says.
 */
#ifndef TAB_TOOLS_H
#define TAB_TOOLS_H

int llrun_main(int argc, char **argv);
int tcpconnect_main(int argc, char **argv);
int tab_control_main(int argc, char **argv);
int curl_main(int argc, char **argv);

/*
 * Gives a restored guest the host's clock and a fresh random seed (tab-fresh.c): HEX is 16..256
 * bytes. Returns NULL when applied, otherwise what failed.
 */
const char *tab_fresh_apply(long long sec, long long nsec, const char *hex);

/*
 * The kernel's Landlock audit records (tab-audit.c): tab_audit_open turns audit on and returns
 * the netlink socket that reads them (-1 if the kernel has no audit); tab_audit_read hands the
 * records it holds to EMIT as (type, text), a denial once its SYSCALL record came;
 * tab_audit_flush hands on a denial still waiting for one (call it when the socket is quiet).
 */
int tab_audit_open(void);
void tab_audit_read(int fd, void (*emit)(const char *type, const char *text));
void tab_audit_flush(void (*emit)(const char *type, const char *text), const char *syscall_record);
int tab_audit_pending(void);

/*
 * A lesson's `check` commands, run out of band for the host (tab-check.c): tab_check_start
 * starts one (`check AS MILLISECONDS BASE64`, answered with ID later); tab_check_poll_fds adds
 * the running checks' output pipes to a poll set; tab_check_timeout_ms is how long the poll may
 * wait (-1: no check runs); tab_check_service reads output, reaps, enforces time limits and
 * writes each finished check's answer with PUT.
 */
#define CHECK_SLOTS_MAX 4
#define CHECK_OUTPUT_MAX 1024
#define CHECK_COMMAND_MAX 1000
#define CHECK_LINE_MAX 1600
struct pollfd;
void tab_check_start(const char *id, const char *args, void (*put)(const char *));
int tab_check_poll_fds(struct pollfd *fds, int max);
int tab_check_timeout_ms(void);
void tab_check_service(void (*put)(const char *));

#endif
