/*
 * tab-tools: one static program for the guest's small tools (tab-tools.h says why). It runs
 * the tool named by the last part of argv[0], so /usr/bin/llrun -> tab-tools is llrun; as
 * `tab-tools TOOL ARGS...` it runs TOOL. Each tool keeps its own arguments, output and exit
 * status.
 */
#include <stdio.h>
#include <string.h>

#include "tab-tools.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} tools[] = {
	{ "llrun", llrun_main },
	{ "tcpconnect", tcpconnect_main },
	{ "tab-control", tab_control_main },
	{ "curl", curl_main },
};

static int (*find(const char *path))(int, char **)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
		if (strcmp(name, tools[i].name) == 0)
			return tools[i].run;
	return NULL;
}

int main(int argc, char **argv)
{
	int (*run)(int, char **) = argc > 0 ? find(argv[0]) : NULL;
	if (run)
		return run(argc, argv);
	if (argc > 1 && (run = find(argv[1])) != NULL)
		return run(argc - 1, argv + 1);
	fputs("usage: tab-tools TOOL [ARGS...]   (TOOL: llrun, tcpconnect, tab-control, curl)\n", stderr);
	return 2;
}
