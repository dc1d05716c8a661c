/* The one C++ file of the addon: V8's own "give memory back" call, which N-API does not offer.
 *
 * Why: the API process runs for months and its RSS crept by 1–3 MB an hour in 2-hour soaks while the objects it
 * holds stayed flat (docs/benchmarks.md): V8 keeps the pages its heap grew into, half-filled, and a collection V8
 * starts on its own reduces memory only when it finds the process idle, which a service answering hosts, streams
 * and requests every second never is. LowMemoryNotification collects everything that can go, compacts, and
 * releases the freed pages; how often to ask for it is the caller's policy. */
#include <v8.h>

extern "C" int ng_v8_low_memory_notification(void) {
  v8::Isolate *isolate = v8::Isolate::GetCurrent();
  if (!isolate) return 0;
  isolate->LowMemoryNotification();
  return 1;
}
