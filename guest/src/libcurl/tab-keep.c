/*
 * tab-keep: one HTTP client that outlives the agent's steps (guest/runner/README.md, "tab-keep").
 *
 *   tab-keep REQUEST_FIFO                 serve (the agent starts it)
 *   tab-keep --ask REQUEST_FIFO METHOD URL BODY_OUT HEADERS_OUT DATA_FILE CONTENT_TYPE NOPROXY MAX_TIME
 *                                         one request; prints the answer line (below)
 *
 * Every `curl` an agent step runs is a new process: a new connection to the proxy, a new
 * CONNECT tunnel and a new TLS handshake with the page, on an emulated CPU. tab-keep is one
 * libcurl handle that serves the steps' requests in turn, so a second request to a host rides
 * the connection (tunnel and TLS session) the first one opened; libcurl reconnects by itself
 * when the page closed it.
 *
 * It is compiled into curl's own program (guest/patches/curl-tab-keep-in-one-program.patch:
 * /usr/bin/tab-keep is a link to /usr/libexec/curl), so the image holds libcurl and wolfSSL once.
 *
 * The agent starts it on a FIFO it made and ends it when it ends (it also dies with its parent:
 * PR_SET_PDEATHSIG). A client (`--ask`: the agent's steps and tab-fetch) makes its own reply
 * FIFO and opens it for reading and writing (so that the answer cannot be lost), then writes
 * one request line, at most PIPE_BUF bytes so that lines from several clients never mix,
 * fields separated by tabs:
 *
 *   REPLY_FIFO  METHOD  URL  BODY_OUT  HEADERS_OUT  DATA_FILE  CONTENT_TYPE  NOPROXY  MAX_TIME
 *
 * METHOD is GET or POST (POST sends DATA_FILE's bytes); HEADERS_OUT, DATA_FILE, CONTENT_TYPE may
 * be empty; NOPROXY is 1 for a request to the proxy itself (never through a tunnel); MAX_TIME
 * is whole seconds. The answer is one line on REPLY_FIFO:
 *
 *   exit=N status=HTTP_CODE connect=CONNECT_CODE connects=NEW_CONNECTIONS -- ERROR
 *
 * with curl's exit code N (0: done), as `curl -w '%{http_code} %{http_connect}
 * %{num_connects}'` would print them. Proxies come from the environment as for curl
 * (https_proxy, HTTPS_PROXY, ...); the CA bundle from CURL_CA_BUNDLE when it is set.
 * `--ask` exits 0 with that line printed, 2 for a request it cannot carry (a tab or newline
 * in a field, a line past PIPE_BUF), 3 when no tab-keep reads the FIFO within a second: in
 * both cases the caller runs curl itself. A request it sent is never the caller's again.
 *
 * TLS sessions: the guest's curl keeps them in /tmp/.curl-tls-sessions (guest/src/curl.c).
 * tab-keep reads that file at start, so its first request to a host resumes too, and writes
 * it back after each new connection, so the next curl resumes from tab-keep's newest ticket.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIELDS 9
/* The guest's TLS sessions, shared with /usr/bin/curl (guest/src/curl.c). */
#define SESSIONS "/tmp/.curl-tls-sessions"
#define MAX_SESSION_LINE (64 * 1024)
#define MAX_BODY_BYTES (16L * 1024 * 1024)

enum { F_REPLY, F_METHOD, F_URL, F_BODY, F_HEADERS, F_DATA, F_TYPE, F_NOPROXY, F_MAXTIME };

/* Splits LINE in place at tabs; empty fields stay empty. Returns the number of fields. */
static int split(char *line, char **field) {
  int n = 0;
  field[n++] = line;
  for (char *p = line; *p; p++) {
    if (*p != '\t') continue;
    *p = '\0';
    if (n == FIELDS) return FIELDS + 1;
    field[n++] = p + 1;
  }
  return n;
}

/* Reads a whole (small) file for a POST body. */
static char *slurp(const char *path, long *size, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  char *buf = NULL;
  long len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 4096;
      if (cap > MAX_BODY_BYTES) {
        snprintf(err, errlen, "%s is larger than %ld bytes", path, MAX_BODY_BYTES);
        free(buf);
        fclose(f);
        return NULL;
      }
      char *grown = realloc(buf, (size_t)cap);
      if (!grown) {
        snprintf(err, errlen, "out of memory");
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + len, 1, (size_t)(cap - len), f);
    if (got == 0) break;
    len += (long)got;
  }
  fclose(f);
  *size = len;
  return buf;
}

/* Base64 (RFC 4648, with padding), as curl's --ssl-sessions file holds it. */
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decodes IN (LEN characters) into OUT (room for LEN * 3 / 4 bytes); -1 when not base64. */
static long unbase64(const char *in, size_t len, unsigned char *out) {
  if (len % 4 != 0) return -1;
  long n = 0;
  for (size_t i = 0; i < len; i += 4) {
    unsigned v = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; j++) {
      const char *at = in[i + j] ? strchr(B64, in[i + j]) : NULL;
      if (in[i + j] == '=' && i + 4 == len && j >= 2) {
        pad++;
        v <<= 6;
      } else if (at && !pad) {
        v = (v << 6) | (unsigned)(at - B64);
      } else {
        return -1;
      }
    }
    out[n++] = (unsigned char)(v >> 16);
    if (pad < 2) out[n++] = (unsigned char)(v >> 8);
    if (pad < 1) out[n++] = (unsigned char)v;
  }
  return n;
}

static void base64(FILE *f, const unsigned char *in, size_t len) {
  for (size_t i = 0; i < len; i += 3) {
    unsigned v = (unsigned)in[i] << 16 | (i + 1 < len ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < len ? in[i + 2] : 0);
    fputc(B64[v >> 18 & 63], f);
    fputc(B64[v >> 12 & 63], f);
    fputc(i + 1 < len ? B64[v >> 6 & 63] : '=', f);
    fputc(i + 2 < len ? B64[v & 63] : '=', f);
  }
}

/* The sessions curl processes left (one `base64(shmac):base64(sdata)` line each), so that
 * tab-keep's first request to a host resumes too. A line it cannot read is skipped. */
static void load_sessions(CURL *curl) {
  FILE *f = fopen(SESSIONS, "r");
  if (!f) return;
  char *line = malloc(MAX_SESSION_LINE);
  unsigned char *shmac = malloc(MAX_SESSION_LINE), *sdata = malloc(MAX_SESSION_LINE);
  while (line && shmac && sdata && fgets(line, MAX_SESSION_LINE, f)) {
    char *colon = strchr(line, ':');
    if (line[0] == '#' || !colon) continue;
    *colon = '\0';
    char *data = colon + 1;
    data[strcspn(data, "\r\n")] = '\0';
    long shmac_len = unbase64(line, strlen(line), shmac);
    long sdata_len = unbase64(data, strlen(data), sdata);
    if (shmac_len > 0 && sdata_len > 0)
      curl_easy_ssls_import(curl, NULL, shmac, (size_t)shmac_len, sdata, (size_t)sdata_len);
  }
  free(line);
  free(shmac);
  free(sdata);
  fclose(f);
}

static CURLcode save_session(CURL *curl, void *file, const char *key, const unsigned char *shmac, size_t shmac_len,
                             const unsigned char *sdata, size_t sdata_len, curl_off_t valid_until, int tls_id,
                             const char *alpn, size_t earlydata_max) {
  (void)curl, (void)key, (void)valid_until, (void)tls_id, (void)alpn, (void)earlydata_max;
  if (!shmac_len || !sdata_len) return CURLE_OK;
  base64(file, shmac, shmac_len);
  fputc(':', file);
  base64(file, sdata, sdata_len);
  fputc('\n', file);
  return CURLE_OK;
}

/* After a new connection: the sessions written back whole (as curl does), so that the next
 * curl process resumes from the newest ticket. Written aside and renamed: never half a file. */
static void save_sessions(CURL *curl) {
  char aside[sizeof SESSIONS + 24];
  snprintf(aside, sizeof aside, "%s.%ld", SESSIONS, (long)getpid());
  FILE *f = fopen(aside, "w");
  if (!f) return;
  fputs("# Your SSL session cache. https://curl.se/docs/ssl-sessions.html\n", f);
  CURLcode rc = curl_easy_ssls_export(curl, save_session, f);
  if (fclose(f) == 0 && rc == CURLE_OK && rename(aside, SESSIONS) == 0) return;
  unlink(aside);
}

/* Writes the answer line; a client that went away is not waited for. */
static void answer(const char *fifo, const char *line) {
  int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  size_t len = strlen(line);
  if (write(fd, line, len) != (ssize_t)len) { /* the client left; nothing to do */
  }
  close(fd);
}

static void serve(CURL *curl, CURLSH *share, char *line) {
  char *f[FIELDS + 1];
  char reply[CURL_ERROR_SIZE + 160];
  char err[CURL_ERROR_SIZE] = "";
  int n = split(line, f);
  if (n < 1 || f[F_REPLY][0] != '/') return; /* no one to answer */
  if (n != FIELDS) {
    snprintf(reply, sizeof reply, "exit=2 status=000 connect=000 connects=0 -- a request has %d fields, not %d\n", n, FIELDS);
    answer(f[F_REPLY], reply);
    return;
  }
  int post = strcmp(f[F_METHOD], "POST") == 0;
  if (!post && strcmp(f[F_METHOD], "GET") != 0) {
    snprintf(reply, sizeof reply, "exit=2 status=000 connect=000 connects=0 -- method %.16s is not GET or POST\n", f[F_METHOD]);
    answer(f[F_REPLY], reply);
    return;
  }
  long seconds = strtol(f[F_MAXTIME], NULL, 10);
  char *data = NULL;
  long data_len = 0;
  if (post && f[F_DATA][0] && !(data = slurp(f[F_DATA], &data_len, err, sizeof err))) {
    snprintf(reply, sizeof reply, "exit=26 status=000 connect=000 connects=0 -- %s\n", err);
    answer(f[F_REPLY], reply);
    return;
  }
  FILE *body = fopen(f[F_BODY], "wb");
  FILE *headers = f[F_HEADERS][0] ? fopen(f[F_HEADERS], "wb") : NULL;
  if (!body || (f[F_HEADERS][0] && !headers)) {
    snprintf(reply, sizeof reply, "exit=23 status=000 connect=000 connects=0 -- cannot write %s: %s\n",
             body ? f[F_HEADERS] : f[F_BODY], strerror(errno));
    answer(f[F_REPLY], reply);
    if (body) fclose(body);
    free(data);
    return;
  }

  /* A reset forgets the last request's options but keeps the connections and TLS sessions. */
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_SHARE, share);
  struct curl_slist *extra = NULL;
  char type[256];
  curl_easy_setopt(curl, CURLOPT_URL, f[F_URL]);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
  if (headers) curl_easy_setopt(curl, CURLOPT_HEADERDATA, headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, seconds > 0 ? seconds : 60L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "curl/" LIBCURL_VERSION);
  const char *ca = getenv("CURL_CA_BUNDLE");
  if (ca && *ca) curl_easy_setopt(curl, CURLOPT_CAINFO, ca);
  if (strcmp(f[F_NOPROXY], "1") == 0) curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  if (post) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data ? data : "");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, data_len);
    if (f[F_TYPE][0]) {
      snprintf(type, sizeof type, "content-type: %s", f[F_TYPE]);
      extra = curl_slist_append(extra, type);
      curl_easy_setopt(curl, CURLOPT_HTTPHEADER, extra);
    }
  }
  CURLcode rc = curl_easy_perform(curl);
  long status = 0, connect_code = 0, connects = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(curl, CURLINFO_HTTP_CONNECTCODE, &connect_code);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  if (connects > 0) save_sessions(curl);
  fclose(body);
  if (headers) fclose(headers);
  curl_slist_free_all(extra);
  free(data);
  if (rc != CURLE_OK && !err[0]) snprintf(err, sizeof err, "%s", curl_easy_strerror(rc));
  for (char *p = err; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  snprintf(reply, sizeof reply, "exit=%d status=%03ld connect=%03ld connects=%ld -- %s\n", (int)rc, status,
           connect_code, connects, err);
  answer(f[F_REPLY], reply);
}

static void woken(int sig) { (void)sig; }

/* --ask: exit 0 with the answer line printed, 3 when no tab-keep answers (the caller then
 * runs curl itself), 2 for a request it cannot send. */
static int ask(int argc, char **argv) {
  if (argc != 2 + FIELDS) { /* --ask, the FIFO, and every field but the reply FIFO */
    fprintf(stderr, "usage: tab-keep --ask REQUEST_FIFO METHOD URL BODY_OUT HEADERS_OUT DATA_FILE CONTENT_TYPE NOPROXY MAX_TIME\n");
    return 2;
  }
  const char *requests = argv[2];
  char reply[PATH_MAX], line[PIPE_BUF + 1];
  const char *tmp = getenv("TMPDIR");
  snprintf(reply, sizeof reply, "%s/tab-keep.%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
  size_t len = (size_t)snprintf(line, sizeof line, "%s", reply);
  for (int i = 3; i < argc; i++) {
    size_t piece = strlen(argv[i]);
    if (strpbrk(argv[i], "\t\n") || len + 1 + piece + 1 >= sizeof line) return 2;
    line[len++] = '\t';
    memcpy(line + len, argv[i], piece);
    len += piece;
  }
  line[len++] = '\n';
  unlink(reply);
  if (mkfifo(reply, 0600) != 0) return 3;
  int in = open(reply, O_RDWR | O_CLOEXEC);
  /* No reader yet: a tab-keep started a moment ago may not have opened its FIFO; wait a
   * second for it, then leave the request to the caller. */
  int out = -1;
  for (int tries = 0; tries < 40; tries++) {
    out = open(requests, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (out >= 0 || errno != ENXIO) break;
    usleep(25000);
  }
  int rc = 3;
  if (in >= 0 && out >= 0 && write(out, line, len) == (ssize_t)len) {
    /* Asked: from here on the request is tab-keep's, so no answer is an answer, never a
     * reason to send it again. It comes within the request's own MAX_TIME, after those
     * queued before it. */
    long seconds = strtol(argv[argc - 1], NULL, 10);
    unsigned wait = (unsigned)((seconds > 0 ? seconds : 60) * 2 + 10);
    struct sigaction on_alarm;
    memset(&on_alarm, 0, sizeof on_alarm);
    on_alarm.sa_handler = woken; /* no SA_RESTART: read() returns at the alarm */
    sigaction(SIGALRM, &on_alarm, NULL);
    alarm(wait);
    char answer_line[CURL_ERROR_SIZE + 160];
    ssize_t got, have = 0;
    while (have < (ssize_t)sizeof answer_line - 1 &&
           (got = read(in, answer_line + have, sizeof answer_line - 1 - (size_t)have)) > 0) {
      have += got;
      if (answer_line[have - 1] == '\n') break;
    }
    alarm(0);
    if (have > 0 && answer_line[have - 1] == '\n')
      fwrite(answer_line, 1, (size_t)have, stdout);
    else
      printf("exit=28 status=000 connect=000 connects=0 -- tab-keep did not answer in %u s\n", wait);
    rc = 0;
  }
  if (out >= 0) close(out);
  if (in >= 0) close(in);
  unlink(reply);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--ask") == 0) return ask(argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: tab-keep REQUEST_FIFO | tab-keep --ask REQUEST_FIFO ...\n");
    return 2;
  }
  /* The agent that started it ends it; if the agent is killed, so is it. */
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() == 1) return 0;
  signal(SIGPIPE, SIG_IGN);
  /* Read and write: the FIFO never reads end-of-file between two clients. */
  FILE *requests = fopen(argv[1], "r+");
  if (!requests) {
    fprintf(stderr, "tab-keep: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
  CURL *curl = curl_easy_init();
  /* The TLS sessions live in a share: they can be imported before the first request, when the
   * handle has no cache of its own yet. Its connections stay in the handle's own cache. */
  CURLSH *share = curl_share_init();
  if (!curl || !share) return 1;
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_easy_setopt(curl, CURLOPT_SHARE, share);
  load_sessions(curl);
  char line[PIPE_BUF + 2];
  while (fgets(line, sizeof line, requests)) {
    size_t len = strlen(line);
    if (len == 0 || line[len - 1] != '\n') {
      /* Longer than a request may be: drop the rest of it; its writer gets no answer and
       * its own timeout says so. Clients check the length before they write. */
      int c;
      while ((c = fgetc(requests)) != EOF && c != '\n') {
      }
      continue;
    }
    line[len - 1] = '\0';
    serve(curl, share, line);
  }
  curl_easy_cleanup(curl);
  curl_share_cleanup(share);
  curl_global_cleanup();
  return 0;
}
