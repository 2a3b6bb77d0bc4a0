// A fixed pool of worker threads for splitting work by output rows.
//
// parallel_for(n, task) runs task(i) for every i in [0, n) and returns when
// all are done. Each task writes its own outputs and computes them exactly
// as a serial loop would, so results are bit-identical for any number of
// threads: the pool only decides who computes a task, never how.
//
// Builds without threads (Wasm without -pthread) run every task on the
// caller. A parallel_for from inside a task runs serially (no nesting).
#pragma once

#include <cstdint>

namespace minimind {

// Whether this build can start threads at all.
bool threads_supported();

// Threads that work on a parallel_for, the caller included (at least 1).
int thread_count();

// Sets the thread count (clamped to [1, kMaxThreads]; 1 where threads are
// not supported). Starts or stops workers; call it between parallel_fors.
void set_thread_count(int count);

constexpr int kMaxThreads = 64;

// Wall time (seconds, since the process started) that callers spent in
// parallel_fors split across more than one thread. The rest of a run ran on
// one thread: with a run's wall time, it says how much of the run threads
// can speed up at all (Amdahl's serial share), as minimind-train reports.
double split_seconds();

// Runs task(i) for i in [0, n): on the caller and the workers, tasks taken
// in increasing order; returns after the last one finished. An exception in
// a task is rethrown here (the first one; the other tasks still finish).
// (Type-erased without allocating: training steps allocate nothing.)
using TaskCall = void (*)(const void* task, int64_t i);
void parallel_for_erased(int64_t n, TaskCall call, const void* task);
template <typename Task>
void parallel_for(int64_t n, const Task& task) {
  parallel_for_erased(
      n, [](const void* t, int64_t i) { (*static_cast<const Task*>(t))(i); }, &task);
}

// [begin, end) of part `part` of `parts` contiguous, near-equal parts of
// [0, n), in units of `align` (the last part takes the remainder).
struct Range {
  int64_t begin, end;
};
Range split_range(int64_t n, int64_t parts, int64_t part, int64_t align = 1);

// body(begin, end) over [0, n) in one contiguous part per thread, for
// element-wise work (each element computed alone, so the same bits); on the
// caller alone below `min_per_thread` elements a thread.
template <typename Body>
void parallel_chunks(int64_t n, int64_t min_per_thread, const Body& body) {
  int64_t parts = thread_count();
  if (min_per_thread > 0 && n / min_per_thread < parts) parts = n / min_per_thread;
  if (parts <= 1) {
    if (n > 0) body(int64_t(0), n);
    return;
  }
  parallel_for(parts, [&](int64_t part) {
    const Range r = split_range(n, parts, part);
    if (r.begin < r.end) body(r.begin, r.end);
  });
}

}  // namespace minimind
