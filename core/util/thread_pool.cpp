#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define MINIMIND_THREADS 1
#include <chrono>
#include <condition_variable>
#include <thread>
#include <vector>
#endif

namespace minimind {

namespace {

thread_local bool in_task = false;          // nested parallel_fors run serially
std::atomic<int64_t> split_nanoseconds{0};  // split_seconds(), summed over callers

// One parallel_for at a time: its tasks, the next index to take, how many
// are still running, and the first exception.
struct Job {
  TaskCall call = nullptr;
  const void* task = nullptr;
  int64_t n = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> remaining{0};
  std::exception_ptr error;
  std::mutex error_mutex;

  // Takes tasks until none is left.
  void work() {
    in_task = true;
    for (int64_t i; (i = next.fetch_add(1)) < n;) {
      try {
        call(task, i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
      remaining.fetch_sub(1);
    }
    in_task = false;
  }
};

#ifdef MINIMIND_THREADS

// How long a worker (or the caller waiting for the workers) spins before it
// sleeps on a condition variable. A decode step is ~100 parallel_fors of
// 20-100 us each; waking a sleeping thread costs tens of microseconds (more
// in Wasm, where a wait is Atomics.wait), which made 2 threads slower than 1.
// Spinning that long between jobs keeps the workers awake through a forward
// and costs an idle core no more than this after the last one.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpin has passed; whether done() held.
template <typename Done>
bool spin_until(const Done& done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return done();
  }
}

// Every worker takes part in every job (taking tasks while any are left) and
// reports when it has left it, so the caller returns only when no worker can
// touch the Job again.
class Pool {
 public:
  ~Pool() { resize(1); }

  int count() const { return worker_count_ + 1; }

  // Between jobs only (set_thread_count's contract).
  void resize(int count) {
    stop_workers();
    worker_count_ = count - 1;
    const uint64_t seen = generation_.load(std::memory_order_acquire);
    for (int w = 1; w < count; ++w) workers_.emplace_back([this, seen] { loop(seen); });
  }

  void run(int64_t n, TaskCall call, const void* task) {
    std::lock_guard<std::mutex> one_job(run_mutex_);
    Job job;
    job.call = call;
    job.task = task;
    job.n = n;
    job.remaining = n;
    job_.store(&job, std::memory_order_relaxed);
    left_.store(0, std::memory_order_relaxed);
    {
      // Under the mutex, so that a worker about to sleep sees it.
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    job.work();
    const auto all_left = [&] { return left_.load(std::memory_order_acquire) == worker_count_; };
    if (!spin_until(all_left)) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, all_left);
    }
    job_.store(nullptr, std::memory_order_relaxed);
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  // seen: the last job when the worker was started.
  void loop(uint64_t seen) {
    for (;;) {
      const auto woken = [&] {
        return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(woken)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, woken);
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      job_.load(std::memory_order_relaxed)->work();
      if (left_.fetch_add(1, std::memory_order_acq_rel) + 1 == worker_count_) {
        // Under the mutex, so that a caller about to sleep sees it.
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_all();
      }
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    worker_count_ = 0;
    stopping_.store(false, std::memory_order_release);
  }

  std::vector<std::thread> workers_;
  int worker_count_ = 0;  // workers_.size(), set before the workers start
  std::mutex run_mutex_;  // one parallel_for at a time
  std::mutex mutex_;      // for sleeping only: the job is handed over by the atomics
  std::condition_variable wake_, done_;
  std::atomic<Job*> job_{nullptr};
  std::atomic<uint64_t> generation_{0};  // one more per job
  std::atomic<int> left_{0};             // workers that have left the current job
  std::atomic<bool> stopping_{false};
};

Pool& pool() {
  static Pool instance;
  return instance;
}

#endif

}  // namespace

bool threads_supported() {
#ifdef MINIMIND_THREADS
  return true;
#else
  return false;
#endif
}

int thread_count() {
#ifdef MINIMIND_THREADS
  return pool().count();
#else
  return 1;
#endif
}

void set_thread_count(int count) {
#ifdef MINIMIND_THREADS
  count = std::clamp(count, 1, kMaxThreads);
  if (count != pool().count()) pool().resize(count);
#else
  (void)count;
#endif
}

void parallel_for_erased(int64_t n, TaskCall call, const void* task) {
  if (n <= 0) return;
#ifdef MINIMIND_THREADS
  if (n > 1 && !in_task && pool().count() > 1) {
    // Counted on the way out, thrown or not.
    struct SplitTimer {
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      ~SplitTimer() {
        const auto elapsed = std::chrono::steady_clock::now() - start;
        split_nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
      }
    } timer;
    return pool().run(n, call, task);
  }
#endif
  if (in_task) {
    for (int64_t i = 0; i < n; ++i) call(task, i);
    return;
  }
  Job job;
  job.call = call;
  job.task = task;
  job.n = n;
  job.remaining = n;
  job.work();
  if (job.error) std::rethrow_exception(job.error);
}

double split_seconds() { return double(split_nanoseconds.load()) * 1e-9; }

Range split_range(int64_t n, int64_t parts, int64_t part, int64_t align) {
  const int64_t units = (n + align - 1) / align;
  const int64_t per = units / parts, extra = units % parts;
  const int64_t begin = part * per + std::min(part, extra);
  const int64_t end = begin + per + (part < extra ? 1 : 0);
  return {std::min(n, begin * align), std::min(n, end * align)};
}

}  // namespace minimind
