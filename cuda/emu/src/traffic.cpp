// The memory-traffic counters (scaleref/emu/traffic.hpp says what is
// counted and modelled). checks.cpp's access() calls traffic::access() for
// every kernel load and store while Options::traffic is on; the scheduler
// opens and closes launches and blocks.
#include <algorithm>
#include <bit>
#include <map>
#include <scaleref/emu/launch.hpp>
#include <scaleref/emu/traffic.hpp>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "internal.hpp"

namespace scaleref::emu {

namespace {

// A request: the n-th instance (occurrence) of one site in one warp.
struct RequestKey {
  std::uint32_t warp, site, occurrence;
  bool shared, store;
  bool operator==(const RequestKey&) const = default;
};
struct RequestKeyHash {
  std::size_t operator()(const RequestKey& k) const {
    std::uint64_t h = (std::uint64_t(k.site) << 32) ^ (std::uint64_t(k.warp) << 16) ^ k.occurrence;
    h = h * 0x9e3779b97f4a7c15ull ^ (k.shared ? 0x51ull : 0) ^ (k.store ? 0xa3ull : 0);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct Piece {
  std::uintptr_t address;
  std::uint32_t bytes;
  std::uint32_t lane;  // the thread's lane in its warp
};

// What one block has counted so far.
struct BlockTraffic {
  std::unordered_map<std::uint64_t, std::uint32_t> occurrences;  // (thread, site) -> count
  std::unordered_map<RequestKey, std::vector<Piece>, RequestKeyHash> requests;
  std::unordered_map<std::uint64_t, std::uint64_t> last_touch;  // sector -> block time then
  std::unordered_set<std::uint64_t> dirty;  // sectors stored to since the block last loaded them
  std::vector<std::uint64_t> progress;      // bytes each thread has accessed in global memory
  std::uint64_t threads = 1;
};

// A logged re-read's code: its bucket (under kReuseBuckets = 48), and this
// bit where it followed the block's store to the sector.
constexpr std::uint8_t kDirtyReread = 0x80;
static_assert(kReuseBuckets <= kDirtyReread);

struct State {
  std::vector<LaunchTraffic> done;
  LaunchTraffic cur;
  bool open = false;
  // sites: (file, line, column) -> index into site_names
  std::map<std::tuple<const char*, std::uint32_t, std::uint32_t>, std::uint32_t> site_ids;
  std::vector<std::string> site_names;
  // per launch: SiteTraffic by (site, shared, store)
  std::map<std::tuple<std::uint32_t, bool, bool>, SiteTraffic> sites;
  std::unordered_set<std::uint64_t> seen, written;   // sectors, this launch
  std::unordered_set<std::uint64_t> first_reads;     // sectors a load touched first
  std::unordered_set<std::uint64_t> shared_sectors;  // sectors more than one block touched
  // re-reads of sectors no other block had touched yet, their bucket (and
  // kDirtyReread), for the launch's end: where another block touched the
  // sector later, they too are shared re-reads
  std::vector<std::uint64_t> reread_sectors;
  std::vector<std::uint8_t> reread_codes;
  BlockTraffic block;                // the running block's
  std::vector<BlockTraffic> parked;  // a cluster's parked blocks', by rank
};

State& state() {
  static State* s = new State;
  return *s;
}

std::uint32_t site_id(State& s, const std::source_location& where) {
  const auto key = std::make_tuple(where.file_name(), where.line(), where.column());
  auto it = s.site_ids.find(key);
  if (it != s.site_ids.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(s.site_names.size());
  s.site_names.push_back(site(where));
  s.site_ids.emplace(key, id);
  return id;
}

// The distinct bytes of a request's pieces, as sorted disjoint [lo, hi) ranges.
std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges(std::vector<Piece>& pieces) {
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.address < b.address; });
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
  for (const Piece& p : pieces) {
    const std::uintptr_t lo = p.address, hi = p.address + p.bytes;
    if (!out.empty() && lo <= out.back().second)
      out.back().second = std::max(out.back().second, hi);
    else
      out.emplace_back(lo, hi);
  }
  return out;
}

void close_request(State& s, const RequestKey& key, std::vector<Piece>& pieces) {
  SiteTraffic& t = s.sites[{key.site, key.shared, key.store}];
  if (t.site.empty()) {
    t.site = s.site_names[key.site];
    t.shared = key.shared;
    t.store = key.store;
  }
  const auto rs = ranges(pieces);
  std::uint64_t bytes = 0;
  for (const auto& [lo, hi] : rs) bytes += hi - lo;
  ++t.requests;
  t.bytes += bytes;
  if (!key.shared) {
    std::uint64_t sectors = 0;
    std::uintptr_t last = ~std::uintptr_t{0};
    for (const auto& [lo, hi] : rs)
      for (std::uintptr_t sec = lo >> 5; sec <= (hi - 1) >> 5; ++sec)
        if (sec != last) {
          ++sectors;
          last = sec;
        }
    t.sectors += sectors;
    t.min_sectors += (bytes + 31) / 32;
    return;
  }
  // shared: the lanes go in phases of 128 bytes' worth of their widest access
  // (32 lanes of 4 bytes, 16 of 8, 8 of 16); each phase takes the most
  // distinct 4-byte words it touches in any one bank
  const std::uint64_t least = std::max<std::uint64_t>(1, (bytes + 127) / 128);
  std::uint32_t widest = 0;
  for (const Piece& p : pieces) widest = std::max(widest, p.bytes);
  const std::uint32_t phase_lanes =
      least == 1 ? 32 : 32 / std::clamp<std::uint32_t>(widest / 4, 1, 8);
  std::uint64_t waves = 0;
  for (std::uint32_t first = 0; first < 32; first += phase_lanes) {
    std::vector<Piece> phase;
    for (const Piece& p : pieces)
      if (p.lane >= first && p.lane < first + phase_lanes) phase.push_back(p);
    if (phase.empty()) continue;
    std::array<std::uint32_t, 32> per_bank{};
    std::uintptr_t last = ~std::uintptr_t{0};
    for (const auto& [lo, hi] : ranges(phase))
      for (std::uintptr_t w = lo >> 2; w <= (hi - 1) >> 2; ++w)
        if (w != last) {
          ++per_bank[w % 32];
          last = w;
        }
    waves += *std::max_element(per_bank.begin(), per_bank.end());
  }
  waves = std::max(waves, least);
  t.wavefronts += waves;
  t.min_wavefronts += least;
  t.worst_degree = std::max(t.worst_degree, double(waves) / double(least));
}

}  // namespace

namespace traffic {

void begin_launch(const char* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                  unsigned cluster, std::uint64_t blocks, std::uint64_t blocks_run) {
  State& s = state();
  s.cur = LaunchTraffic{};
  s.cur.kernel = kernel;
  s.cur.grid[0] = grid.x, s.cur.grid[1] = grid.y, s.cur.grid[2] = grid.z;
  s.cur.block[0] = block.x, s.cur.block[1] = block.y, s.cur.block[2] = block.z;
  s.cur.shared_bytes = shared_bytes;
  s.cur.cluster = cluster;
  s.cur.blocks = blocks;
  s.cur.blocks_run = blocks_run;
  s.sites.clear();
  s.seen.clear();
  s.written.clear();
  s.first_reads.clear();
  s.shared_sectors.clear();
  s.reread_sectors.clear();
  s.reread_codes.clear();
  s.open = true;
}

void begin_block(unsigned threads) {
  State& s = state();
  s.block = BlockTraffic{};
  s.block.threads = threads;
  s.block.progress.assign(threads, 0);
}

void end_block() {
  State& s = state();
  for (auto& [key, pieces] : s.block.requests) close_request(s, key, pieces);
  s.block.requests.clear();
}

void park_block(unsigned rank) {
  State& s = state();
  if (s.parked.size() <= rank) s.parked.resize(rank + 1);
  s.parked[rank] = std::move(s.block);
}

void resume_block(unsigned rank) {
  State& s = state();
  s.block = std::move(s.parked.at(rank));
}

void end_launch() {
  State& s = state();
  if (!s.open) return;
  for (auto& [key, t] : s.sites) s.cur.sites.push_back(std::move(t));
  s.cur.written_sectors = s.written.size();
  for (std::uint64_t sec : s.first_reads)
    s.cur.shared_first_read_sectors += s.shared_sectors.count(sec);
  for (std::size_t k = 0; k < s.reread_sectors.size(); ++k) {
    if (s.shared_sectors.count(s.reread_sectors[k])) {
      ++s.cur.shared_rereads;
      continue;
    }
    const std::uint8_t code = s.reread_codes[k];
    const auto bucket = static_cast<std::size_t>(code & ~kDirtyReread);
    ++s.cur.reread[bucket];
    if (code & kDirtyReread) ++s.cur.reread_dirty[bucket];
  }
  // the log is the launch's alone: hand its memory back
  std::vector<std::uint64_t>().swap(s.reread_sectors);
  std::vector<std::uint8_t>().swap(s.reread_codes);
  s.done.push_back(std::move(s.cur));
  s.open = false;
}

void access(const void* p, std::size_t n, bool shared, bool store, std::uint32_t thread,
            const std::source_location& where) {
  State& s = state();
  if (!s.open || n == 0) return;
  const std::uint32_t id = site_id(s, where);
  BlockTraffic& b = s.block;
  const std::uint32_t occurrence = b.occurrences[(std::uint64_t(thread) << 32) | id]++;
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  b.requests[{thread / 32u, id, occurrence, shared, store}].push_back(
      {address, static_cast<std::uint32_t>(n), thread % 32u});
  if (shared) return;
  // The block's time: this thread's progress times the block's threads (the
  // threads of a block advance together, as warps in lockstep do), so that a
  // lane's touch of a sector another lane of its request just touched is at
  // distance 0, and a second pass over a row is at the row's bytes.
  std::uint64_t& progress = b.progress[thread];
  const std::uint64_t now = progress * b.threads;
  for (std::uintptr_t sec = address >> 5; sec <= (address + n - 1) >> 5; ++sec) {
    if (store) s.written.insert(sec);
    const auto [it, first_in_block] = b.last_touch.try_emplace(sec, now);
    // stored to since this block last loaded it (a load clears the mark)
    bool was_dirty = false;
    if (store)
      b.dirty.insert(sec);
    else
      was_dirty = b.dirty.erase(sec) > 0;
    if (s.seen.insert(sec).second) {
      if (!store) {
        ++s.cur.first_read_sectors;
        s.first_reads.insert(sec);
      }
    } else if (first_in_block) {
      s.shared_sectors.insert(sec);  // another block touched it first
    } else if (!store && s.shared_sectors.count(sec)) {
      ++s.cur.shared_rereads;
    } else if (!store) {
      const std::uint64_t distance = now > it->second ? now - it->second : 0;
      const int bucket =
          distance < 2 ? 0 : std::min(kReuseBuckets - 1, int(std::bit_width(distance)) - 1);
      s.reread_sectors.push_back(sec);  // binned at the launch's end (end_launch)
      s.reread_codes.push_back(static_cast<std::uint8_t>(bucket | (was_dirty ? kDirtyReread : 0)));
    }
    it->second = std::max(it->second, now);
  }
  progress += n;
}

}  // namespace traffic

std::vector<LaunchTraffic> take_traffic() {
  State& s = state();
  std::vector<LaunchTraffic> out = std::move(s.done);
  s.done.clear();
  return out;
}

}  // namespace scaleref::emu
