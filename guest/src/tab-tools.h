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

#endif
