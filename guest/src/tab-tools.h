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
int tab_fresh_main(int argc, char **argv);
int tab_prompt_main(int argc, char **argv);
int curl_main(int argc, char **argv);

/*
 * Applies a fresh-machine request (tab-fresh.c documents FILE) and deletes FILE. Returns 0 when
 * applied; otherwise 1, with one line on stderr unless `quiet`, and FILE left in place.
 */
int tab_fresh_apply(const char *file, int quiet);

#endif
