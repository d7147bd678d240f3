// Runs fn(0) .. fn(n-1) on at most `jobs` threads. The first exception thrown by fn is rethrown
// once every thread has finished.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace meshplan {

template <typename F>
void parallel_for(size_t n, int jobs, F&& fn) {
  size_t workers = std::min(n, static_cast<size_t>(std::max(1, jobs)));
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w)
    threads.emplace_back(work);
  if (workers > 0) work();
  for (auto& t : threads)
    t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace meshplan
