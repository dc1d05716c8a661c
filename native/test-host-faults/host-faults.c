/* Fault injection for the native engine host, tests only (README.md): an LD_PRELOAD shim with the faults of
 * test/fixtures/host-faults.js, which does the same inside a Node host. It acts only in an `encoderd-host` process;
 * in any other that loads it (the service, prlimit, a Node host) its constructor returns and it has no other symbol.
 *   TEST_HOST_FAULT_START=<file>  while the file exists, the host exits 70 before it says it is ready;
 *   TEST_HOST_FAULT_PLAY=<file>   while it exists, the next play is answered NG_ERR_STATE before the host sees it,
 *                                 once (the file is removed).
 * For the play fault the shim stands between the core and the host on the IPC channel: the host is handed one end of
 * a socket pair in NODE_CHANNEL_FD, and two threads carry lines across, the core's through a look for a play. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *play_fault;
static int core_fd = -1;
static int host_fd = -1;
/* Lines to the core come from the host's side and from a fault's reply: each goes whole. */
static pthread_mutex_t to_core = PTHREAD_MUTEX_INITIALIZER;

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t) w;
  }
  return 0;
}

/* Reads fd line by line (each with its '\n') into on_line until the end; on_line returns -1 to stop. */
static void each_line(int fd, int (*on_line)(const char *line, size_t n)) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len == cap) buf = realloc(buf, cap *= 2);
    ssize_t r = read(fd, buf + len, cap - len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    len += (size_t) r;
    char *start = buf, *nl;
    while ((nl = memchr(start, '\n', len - (size_t) (start - buf)))) {
      if (on_line(start, (size_t) (nl - start) + 1) < 0) goto out;
      start = nl + 1;
    }
    len -= (size_t) (start - buf);
    memmove(buf, start, len);
  }
out:
  free(buf);
}

static int to_core_line(const char *line, size_t n) {
  pthread_mutex_lock(&to_core);
  int rc = write_all(core_fd, line, n);
  pthread_mutex_unlock(&to_core);
  return rc;
}

/* The core's lines are JSON.stringify of {id, cmd} with cmd's op first (core/engine/native-host.ts). */
static int to_host_line(const char *line, size_t n) {
  long id;
  int at = 0;
  if (sscanf(line, "{\"id\":%ld,\"cmd\":{\"op\":\"play\"%n", &id, &at) == 1 && at > 0 && access(play_fault, F_OK) == 0) {
    unlink(play_fault);
    char reply[256];
    int len = snprintf(reply, sizeof reply, "{\"id\":%ld,\"ok\":false,\"error\":{\"code\":\"NG_ERR_STATE\",\"message\":"
                       "\"fault injected: the pipeline did not reach PLAYING\"}}\n", id);
    return to_core_line(reply, (size_t) len);
  }
  return write_all(host_fd, line, n);
}

static void *core_to_host(void *unused) {
  each_line(core_fd, to_host_line);
  shutdown(host_fd, SHUT_WR); /* the core went away: the host sees the end of its channel and exits */
  return NULL;
}

static void *host_to_core(void *unused) {
  each_line(host_fd, to_core_line);
  shutdown(core_fd, SHUT_WR);
  return NULL;
}

static int is_engine_host(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = '\0';
  const char *base = strrchr(exe, '/');
  return strcmp(base ? base + 1 : exe, "encoderd-host") == 0;
}

__attribute__((constructor)) static void host_faults_init(void) {
  if (!is_engine_host()) return;
  const char *start_fault = getenv("TEST_HOST_FAULT_START");
  if (start_fault && *start_fault && access(start_fault, F_OK) == 0) _exit(70);
  play_fault = getenv("TEST_HOST_FAULT_PLAY");
  const char *channel = getenv("NODE_CHANNEL_FD");
  if (!play_fault || !*play_fault || !channel) return;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    perror("host-faults: socketpair");
    _exit(71);
  }
  core_fd = atoi(channel);
  host_fd = pair[0];
  char text[16];
  snprintf(text, sizeof text, "%d", pair[1]);
  setenv("NODE_CHANNEL_FD", text, 1);
  pthread_t a, b;
  if (pthread_create(&a, NULL, core_to_host, NULL) != 0 || pthread_create(&b, NULL, host_to_core, NULL) != 0) {
    perror("host-faults: pthread_create");
    _exit(71);
  }
  pthread_detach(a);
  pthread_detach(b);
}
