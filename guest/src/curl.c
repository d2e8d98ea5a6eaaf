/*
 * curl: the guest's curl command. It runs the real curl (/usr/libexec/curl, built by build.sh)
 * with `--ssl-sessions /tmp/.curl-tls-sessions` added, so a TLS session one curl made is
 * resumed by the next (the page issues TLS 1.3 session tickets; a resumed handshake skips the
 * certificate and its verification, a quarter of the guest's TLS work). curl keeps its
 * sessions only for one process otherwise.
 *
 * The option is added only when the file can be opened for writing right now: under a
 * Landlock ruleset that forbids it (the demos run curl under llrun), curl would otherwise
 * warn and exit 23 after a successful transfer because it could not save. It is added last,
 * so an `-q` (no .curlrc) stays the first argument. Nothing else changes: same arguments,
 * same exit status, same output.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tab-tools.h"

#define REAL_CURL "/usr/libexec/curl"
#define SESSIONS "/tmp/.curl-tls-sessions"

int curl_main(int argc, char **argv) {
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) {
    perror("curl");
    return 127;
  }
  int n = 0;
  for (int i = 0; i < argc; i++) args[n++] = argv[i];
  int fd = open(SESSIONS, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    args[n++] = "--ssl-sessions";
    args[n++] = SESSIONS;
  }
  args[n] = NULL;
  execv(REAL_CURL, args);
  perror("curl: " REAL_CURL);
  return 127;
}
