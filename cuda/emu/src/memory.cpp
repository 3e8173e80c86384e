// Device memory on the emulator, laid out so that misuse faults or shows
// (cuda/README.md, "The emulator": memcheck).
//
// Each cudaMalloc gets pages of its own, between two inaccessible guard pages:
//
//   [guard][pad .. | data (256-byte aligned, as cudaMalloc's) | pad to 256 .. end][guard]
//
// with the data placed as close to the upper guard as 256-byte alignment
// allows. An access beyond the padding faults at once, and the fault handler
// reports the kernel, block, thread and address, and how far outside which
// allocation it fell. The padding (under 256 bytes after the data, the rest of
// the page before it) is filled with a pattern and checked after every launch
// and at cudaFree, so a write there is reported with the kernel's name; a read
// there goes unseen. A freed allocation's pages stay mapped but inaccessible
// (up to kQuarantineBytes of address space and kQuarantineMappings
// allocations, oldest released first), so a use after free faults and is
// reported as one.
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <scaleref/emu/launch.hpp>
#include <string>
#include <vector>

#include "internal.hpp"

namespace scaleref::emu {

namespace {

constexpr std::byte kPad{0xa5};
constexpr std::size_t kAlign = 256;
constexpr std::size_t kQuarantineBytes = std::size_t(64) << 30;  // address space, not memory
// and at most this many freed allocations: each is a mapping of its own, and
// the kernel allows a process vm.max_map_count of them (65530 by default),
// live allocations (three each: two guards and the body) and the program's own
// included.
constexpr std::size_t kQuarantineMappings = 16384;
constexpr std::size_t kSharedArena = 228 * 1024;  // 227 KiB opt-in, rounded up to pages

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

struct Mapping {
  std::byte* base;    // first guard page
  std::size_t size;   // whole mapping, guards included
  std::byte* data;    // what cudaMalloc returned
  std::size_t bytes;  // what was asked for
  bool freed = false;
};

struct Registry {
  std::mutex mutex;
  std::map<std::uintptr_t, Mapping> live;  // by data address
  std::deque<Mapping> quarantine;          // freed, inaccessible
  std::size_t quarantined = 0;
  std::vector<std::pair<const void*, const void*>> stack_guards;
  std::size_t used = 0;  // bytes asked for and not freed
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: allocations may outlive statics
  return *r;
}

// The allocation whose data or padding holds address a (live or freed).
const Mapping* find_mapping(std::uintptr_t a, const Registry& r) {
  auto it = r.live.upper_bound(a);
  if (it != r.live.begin()) {
    const Mapping& m = std::prev(it)->second;
    const auto lo = reinterpret_cast<std::uintptr_t>(m.base);
    if (a >= lo && a < lo + m.size) return &m;
  }
  if (it != r.live.end()) {
    const Mapping& m = it->second;
    const auto lo = reinterpret_cast<std::uintptr_t>(m.base);
    if (a >= lo && a < lo + m.size) return &m;
  }
  for (const Mapping& m : r.quarantine) {
    const auto lo = reinterpret_cast<std::uintptr_t>(m.base);
    if (a >= lo && a < lo + m.size) return &m;
  }
  return nullptr;
}

std::byte* arena() {
  static std::byte* a = [] {
    const std::size_t size = round_up(kSharedArena, page_size()) + page_size();
    void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<std::byte*>(p);
  }();
  return a;
}
std::size_t g_arena_open = 0;  // bytes of the arena accessible now

// ---- the fault handler -------------------------------------------------------

void write_all(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

// The SIGSEGV and SIGBUS actions in place before install_fault_handler's.
struct sigaction previous_action[2];

void on_fault(int sig, siginfo_t* info, void* context) {
  const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const char* access = "access";
#if defined(__x86_64__)
  if (context)
    access = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";
#else
  (void)context;
#endif
  char what[512];
  what[0] = '\0';
  const Registry& r = registry();
  const auto shared = reinterpret_cast<std::uintptr_t>(arena());
  if (const Mapping* m = find_mapping(a, r)) {
    const auto lo = reinterpret_cast<std::uintptr_t>(m->data);
    if (m->freed)
      std::snprintf(what, sizeof what,
                    "use after free: %s at %p, byte %ld of a freed %zu-byte "
                    "allocation at %p",
                    access, info->si_addr, long(a - lo), m->bytes, static_cast<void*>(m->data));
    else if (a < lo)
      std::snprintf(what, sizeof what,
                    "out-of-bounds %s at %p, %lu bytes before a %zu-byte "
                    "allocation at %p",
                    access, info->si_addr, static_cast<unsigned long>(lo - a), m->bytes,
                    static_cast<void*>(m->data));
    else
      std::snprintf(what, sizeof what,
                    "out-of-bounds %s at %p, %lu bytes past the end of a "
                    "%zu-byte allocation at %p",
                    access, info->si_addr, static_cast<unsigned long>(a - lo - m->bytes), m->bytes,
                    static_cast<void*>(m->data));
  } else if (a >= shared && a < shared + round_up(kSharedArena, page_size()) + page_size()) {
    std::snprintf(what, sizeof what,
                  "out-of-bounds shared memory %s at byte %lu of the dynamic "
                  "shared memory, of which the launch has %zu bytes",
                  access, static_cast<unsigned long>(a - shared), g_arena_open);
  } else {
    for (const auto& [glo, ghi] : r.stack_guards)
      if (info->si_addr >= glo && info->si_addr < ghi)
        std::snprintf(what, sizeof what, "a thread overflowed its %zu-byte stack (at %p)",
                      std::size_t(128 * 1024), info->si_addr);
  }
  if (!what[0]) {  // not ours: back to the handler before ours (or the default action),
    // which the faulting instruction, run again on return, then reaches (Python's
    // faulthandler in a torch process prints its traceback)
    sigaction(sig, &previous_action[sig == SIGBUS ? 1 : 0], nullptr);
    return;
  }
  char where[640];
  describe_position(where, sizeof where);
  char line[1400];
  std::snprintf(line, sizeof line, "scaleref emulator: memcheck: %s, in %s\n", what, where);
  write_all(line);
  _exit(70);
}

// UBSan's alignment check (the kernels are built with it) reports the
// address and type; this adds where it happened.
void on_sanitizer_death() {
  char where[640], line[720];
  describe_position(where, sizeof where);
  std::snprintf(line, sizeof line,
                "scaleref emulator: memcheck: a misaligned access (above), in %s\n", where);
  write_all(line);
}

}  // namespace

// Weak: a program whose kernels are built without the sanitizer has no runtime to call.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

void* dynamic_shared_base() { return arena(); }

namespace memory {

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_action[0]);
    sigaction(SIGBUS, &sa, &previous_action[1]);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
  });
  thread_local bool has_stack = false;
  if (!has_stack) {
    static thread_local std::vector<char> alt(64 * 1024);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);
    has_stack = true;
  }
}

void note_stack_guard(const void* lo, const void* hi) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.stack_guards.emplace_back(lo, hi);
}

std::vector<Span> reachable(const void* params, std::size_t bytes) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<Span> out;
  const auto* p = static_cast<const unsigned char*>(params);
  for (std::size_t off = 0; off + sizeof(std::uintptr_t) <= bytes; off += alignof(std::uintptr_t)) {
    std::uintptr_t a;
    std::memcpy(&a, p + off, sizeof a);
    auto it = r.live.upper_bound(a);
    if (it == r.live.begin()) continue;
    const Mapping& m = std::prev(it)->second;
    const auto lo = reinterpret_cast<std::uintptr_t>(m.data);
    if (a < lo || a > lo + m.bytes) continue;
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const Span& s) { return s.data == m.data; });
    if (!seen) out.push_back({m.data, m.bytes});
  }
  return out;
}

bool is_device(const void* p, std::size_t bytes) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = r.live.upper_bound(a);
  if (it == r.live.begin()) return false;
  const Mapping& m = std::prev(it)->second;
  const auto lo = reinterpret_cast<std::uintptr_t>(m.data);
  return a >= lo && a - lo <= m.bytes && bytes <= m.bytes - (a - lo);
}

std::string check_padding(const Span& s) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto it = r.live.find(reinterpret_cast<std::uintptr_t>(s.data));
  if (it == r.live.end()) return "";
  const Mapping& m = it->second;
  const std::byte* lo = m.base + page_size();
  const std::byte* hi = m.base + m.size - page_size();
  for (const std::byte* q = lo; q < hi; ++q) {
    if (q == m.data) q += m.bytes;
    if (q < hi && *q != kPad) {
      char b[200];
      if (q < m.data)
        std::snprintf(b, sizeof b, "wrote %ld bytes before the %zu-byte allocation at %p",
                      long(m.data - q), m.bytes, static_cast<const void*>(m.data));
      else
        std::snprintf(b, sizeof b, "wrote %ld bytes past the end of the %zu-byte allocation at %p",
                      long(q - m.data - static_cast<std::ptrdiff_t>(m.bytes)), m.bytes,
                      static_cast<const void*>(m.data));
      return b;
    }
  }
  return "";
}

void arm_dynamic_shared(std::size_t bytes) {
  const std::size_t open = round_up(bytes, page_size());
  const std::size_t was = round_up(g_arena_open, page_size());
  if (open != was) {
    std::byte* a = arena();
    if (open > was) mprotect(a + was, open - was, PROT_READ | PROT_WRITE);
    if (open < was) mprotect(a + open, was - open, PROT_NONE);
  }
  g_arena_open = bytes;
}

void poison(void* p, std::size_t bytes) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = (i & 1) ? 0xff : 0xf1;  // little-endian 0xfff1
}

void poison_dynamic_shared(std::size_t bytes) { poison(arena(), bytes); }

std::vector<std::vector<std::size_t>> poison_words(const std::vector<Span>& spans) {
  std::vector<std::vector<std::size_t>> out(spans.size());
  for (std::size_t k = 0; k < spans.size(); ++k)
    for (std::size_t at = 0; at + 4 <= spans[k].bytes; at += 4) {
      std::uint32_t w;
      std::memcpy(&w, spans[k].data + at, 4);
      if (w == kPoisonWord) out[k].push_back(at);
    }
  return out;
}

}  // namespace memory

// ---- the runtime's allocation calls ------------------------------------------

cudaError_t allocate(void** ptr, std::size_t bytes) {
  if (!ptr) return record_error(cudaErrorInvalidValue, "cudaMalloc: a null result pointer");
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  const std::size_t page = page_size();
  const std::size_t body = round_up(round_up(bytes, kAlign), page);
  const std::size_t size = body + 2 * page;
  if (bytes > (std::size_t(1) << 46))
    return record_error(cudaErrorMemoryAllocation, "cudaMalloc(" + std::to_string(bytes) +
                                                       " bytes): more than the device has");
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return record_error(cudaErrorMemoryAllocation,
                        "cudaMalloc(" + std::to_string(bytes) + " bytes): out of memory");
  auto* b = static_cast<std::byte*>(base);
  mprotect(b, page, PROT_NONE);
  mprotect(b + page + body, page, PROT_NONE);
  std::byte* data = b + page + body - round_up(bytes, kAlign);
  std::memset(b + page, static_cast<int>(kPad), body);
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.live.emplace(reinterpret_cast<std::uintptr_t>(data), Mapping{b, size, data, bytes});
  r.used += bytes;
  checks::allocated(data, bytes);
  *ptr = data;
  return cudaSuccess;
}

cudaError_t release(void* ptr) {
  if (!ptr) return cudaSuccess;
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  const auto it = r.live.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == r.live.end()) {
    lock.unlock();
    char b[128];
    std::snprintf(b, sizeof b, "cudaFree(%p): not an allocation from cudaMalloc, or freed twice",
                  ptr);
    return record_error(cudaErrorInvalidDevicePointer, b);
  }
  lock.unlock();
  const std::string pad = memory::check_padding({it->second.data, it->second.bytes});
  lock.lock();
  Mapping m = it->second;
  r.live.erase(it);
  checks::freed(m.data);
  r.used -= m.bytes;
  mprotect(m.base, m.size, PROT_NONE);
  madvise(m.base, m.size, MADV_DONTNEED);
  m.freed = true;
  r.quarantine.push_back(m);
  r.quarantined += m.size;
  while (r.quarantined > kQuarantineBytes || r.quarantine.size() > kQuarantineMappings) {
    munmap(r.quarantine.front().base, r.quarantine.front().size);
    r.quarantined -= r.quarantine.front().size;
    r.quarantine.pop_front();
  }
  lock.unlock();
  if (!pad.empty())
    return record_error(cudaErrorIllegalAddress, "found at cudaFree: something " + pad);
  return cudaSuccess;
}

std::size_t device_bytes_in_use() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.used;
}

}  // namespace scaleref::emu
