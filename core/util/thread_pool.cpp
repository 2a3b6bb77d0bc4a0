#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define MINIMIND_THREADS 1
#include <condition_variable>
#include <thread>
#include <vector>
#endif

namespace minimind {

namespace {

thread_local bool in_task = false;  // nested parallel_fors run serially

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

class Pool {
 public:
  ~Pool() { resize(1); }

  int count() const { return int(workers_.size()) + 1; }

  void resize(int count) {
    stop_workers();
    for (int w = 1; w < count; ++w) workers_.emplace_back([this] { loop(); });
  }

  void run(int64_t n, TaskCall call, const void* task) {
    std::lock_guard<std::mutex> one_job(run_mutex_);
    Job job;
    job.call = call;
    job.task = task;
    job.n = n;
    job.remaining = n;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    job.work();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return job.remaining.load() == 0 && busy_ == 0; });
    job_ = nullptr;
    lock.unlock();
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  void loop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || (job_ && generation_ != seen); });
      if (stopping_) return;
      seen = generation_;
      Job* job = job_;
      ++busy_;
      lock.unlock();
      job->work();
      lock.lock();
      --busy_;
      done_.notify_all();
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stopping_ = false;
  }

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  int busy_ = 0;  // workers inside job_->work()
  bool stopping_ = false;
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
  if (n > 1 && !in_task && pool().count() > 1) return pool().run(n, call, task);
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

Range split_range(int64_t n, int64_t parts, int64_t part, int64_t align) {
  const int64_t units = (n + align - 1) / align;
  const int64_t per = units / parts, extra = units % parts;
  const int64_t begin = part * per + std::min(part, extra);
  const int64_t end = begin + per + (part < extra ? 1 : 0);
  return {std::min(n, begin * align), std::min(n, end * align)};
}

}  // namespace minimind
