/* The engine host's view of its own C heap: glibc's in-use and held figures, and giving free pages back.
 *
 * Why: a host tears pipelines down and builds new ones for months (stop/play, rebuilds, on-demand RTSP media,
 * an x265 re-open per live bitrate change). glibc keeps the pages those teardowns free inside its arenas, and
 * the host's RSS grows with the holes (docs/operations.md, "Memory over weeks"); malloc_trim(0) hands every free
 * page back. When to call it is the host's policy, not this file's. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>
#include "ng.h"

/* malloc_trim(0): true when some memory was released to the system. */
static napi_value ng_malloc_trim(napi_env env, napi_callback_info info) {
  napi_value out;
  NG_CALL(napi_get_boolean(env, malloc_trim(0) != 0, &out));
  return out;
}

/* mallopt(M_ARENA_MAX, n): at most n arenas for the threads that have none yet. Each thread that allocates
 * otherwise gets an arena of its own (up to 8 a core), and pages half used in many arenas are pages no trim gives
 * back. The engine hosts get the same through MALLOC_ARENA_MAX; the API process, started by `node`, sets it here. */
static napi_value ng_malloc_arena_max(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_INT64(n, argv[0]);
  if (n < 1 || n > 64) NG_THROW("NG_ERR_ARG", "arenas must be between 1 and 64");
  napi_value out;
  NG_CALL(napi_get_boolean(env, mallopt(M_ARENA_MAX, (int) n) == 1, &out));
  return out;
}

/* execv(path, args) with the process's environment, as it is now: the process starts again from main(), same pid.
 * Of its fds only stdin, stdout and stderr go across: Node marks even those close-on-exec, and the new image found
 * /dev/null in their place (the service's log lost), so they are cleared of it here. Its one use: glibc reads
 * MALLOC_ARENA_MAX only when a process starts, and by the time JS can set it, V8's and libuv's threads have arenas
 * of their own (core/process-arenas.ts). Returns only on failure, throwing NG_ERR_EXEC with the errno's text. */
static napi_value ng_exec_self(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_STRING_AUTO(path, argv[0]);
  bool is_array = false;
  NG_CALL(napi_is_array(env, argv[1], &is_array));
  if (!is_array) NG_THROW("NG_ERR_ARG", "args must be an array of strings");
  uint32_t n = 0;
  NG_CALL(napi_get_array_length(env, argv[1], &n));
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    NG_CALL(napi_get_element(env, argv[1], i, &item));
    NG_STRING_AUTO(arg, item);
    g_ptr_array_add(args, g_steal_pointer(&arg));
  }
  g_ptr_array_add(args, NULL);
  for (int fd = 0; fd <= 2; fd++) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) && fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
      NG_THROWF("NG_ERR_EXEC", "keeping fd %d open across exec: %s", fd, g_strerror(errno));
  }
  execv(path, (char **) args->pdata);
  NG_THROWF("NG_ERR_EXEC", "execv %s: %s", path, g_strerror(errno));
}

/* mallinfo2() over every arena: bytes in use by the program and bytes glibc holds (in use or free). */
static napi_value ng_malloc_stats(napi_env env, napi_callback_info info) {
  struct mallinfo2 mi = mallinfo2();
  napi_value out;
  NG_CALL(napi_create_object(env, &out));
  NG_SET_NUMBER(out, "inUse", mi.uordblks + mi.hblkhd);
  NG_SET_NUMBER(out, "held", mi.arena + mi.hblkhd);
  return out;
}

int ng_v8_low_memory_notification(void); /* v8-memory.cc */

/* V8's LowMemoryNotification on the calling (main) thread: true when there was an isolate to tell. */
static napi_value ng_v8_low_memory(napi_env env, napi_callback_info info) {
  napi_value out;
  NG_CALL(napi_get_boolean(env, ng_v8_low_memory_notification() != 0, &out));
  return out;
}

napi_value ng_memory_init(napi_env env, napi_value exports) {
  NG_EXPORT_FUNCTION(exports, "mallocTrim", ng_malloc_trim);
  NG_EXPORT_FUNCTION(exports, "mallocStats", ng_malloc_stats);
  NG_EXPORT_FUNCTION(exports, "mallocArenaMax", ng_malloc_arena_max);
  NG_EXPORT_FUNCTION(exports, "v8LowMemory", ng_v8_low_memory);
  NG_EXPORT_FUNCTION(exports, "execSelf", ng_exec_self);
  return exports;
}
