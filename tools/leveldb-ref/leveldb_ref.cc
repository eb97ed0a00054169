// leveldb_ref: applies a stream of key-value operations to a fresh LevelDB
// (the reference for ftlsim's LSM engine, `ftlsim lsm-compare`) and prints
// its compaction bytes per level, from `leveldb.stats`, and the bytes it
// wrote to its log and table files, as one JSON object.
//
// Operations come on stdin, one a line (ftlsim generates them, so both
// engines see the same load):
//   P <key> <value_bytes>   put (the value is that many incompressible bytes)
//   D <key>                 delete
//   G <key>                 get
//   S <key> <records>       scan of that many records from the key
//
// Options: --db DIR (required; destroyed before, and after unless --keep-db,
// which leaves it and its LOG for a look), --write-buffer-size,
// --max-file-size, --block-size (bytes), --bloom-bits (0: no filter),
// --settle (default) | --background. With --settle the program waits after
// every operation until LevelDB's background work (flush, compactions) is
// done, so flushes and compactions happen in the same order as in an engine
// that compacts inline after each flush (ftlsim's today); --background lets
// LevelDB's thread run concurrently with the writes, as it does in
// production, which makes the result depend on timing.
//
// Build: c++ -O2 -std=c++17 leveldb_ref.cc -lleveldb -o leveldb_ref
// (Debian: libleveldb-dev 1.23). docs/remapcom.md describes the comparison.

#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>

#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Bytes written to and read from files, by kind.
struct Counters {
  std::atomic<uint64_t> log_write_bytes{0};
  std::atomic<uint64_t> table_write_bytes{0};
  std::atomic<uint64_t> other_write_bytes{0};
  std::atomic<uint64_t> table_read_bytes{0};
};

bool EndsWith(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool IsTable(const std::string& f) {
  return EndsWith(f, ".ldb") || EndsWith(f, ".sst");
}

class CountingWritable : public leveldb::WritableFile {
 public:
  CountingWritable(leveldb::WritableFile* base, std::atomic<uint64_t>* bytes)
      : base_(base), bytes_(bytes) {}
  ~CountingWritable() override { delete base_; }
  leveldb::Status Append(const leveldb::Slice& data) override {
    *bytes_ += data.size();
    return base_->Append(data);
  }
  leveldb::Status Close() override { return base_->Close(); }
  leveldb::Status Flush() override { return base_->Flush(); }
  leveldb::Status Sync() override { return base_->Sync(); }

 private:
  leveldb::WritableFile* base_;
  std::atomic<uint64_t>* bytes_;
};

class CountingRandomAccess : public leveldb::RandomAccessFile {
 public:
  CountingRandomAccess(leveldb::RandomAccessFile* base,
                       std::atomic<uint64_t>* bytes)
      : base_(base), bytes_(bytes) {}
  ~CountingRandomAccess() override { delete base_; }
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    leveldb::Status s = base_->Read(offset, n, result, scratch);
    *bytes_ += result->size();
    return s;
  }

 private:
  leveldb::RandomAccessFile* base_;
  std::atomic<uint64_t>* bytes_;
};

// The default environment, counting file bytes and (with settle) knowing
// when LevelDB's background work is done.
class RefEnv : public leveldb::EnvWrapper {
 public:
  RefEnv() : leveldb::EnvWrapper(leveldb::Env::Default()) {}

  Counters counters;

  leveldb::Status NewWritableFile(const std::string& f,
                                  leveldb::WritableFile** r) override {
    leveldb::Status s = target()->NewWritableFile(f, r);
    if (s.ok()) *r = new CountingWritable(*r, KindOf(f));
    return s;
  }

  leveldb::Status NewAppendableFile(const std::string& f,
                                    leveldb::WritableFile** r) override {
    leveldb::Status s = target()->NewAppendableFile(f, r);
    if (s.ok()) *r = new CountingWritable(*r, KindOf(f));
    return s;
  }

  leveldb::Status NewRandomAccessFile(const std::string& f,
                                      leveldb::RandomAccessFile** r) override {
    leveldb::Status s = target()->NewRandomAccessFile(f, r);
    if (s.ok() && IsTable(f)) {
      *r = new CountingRandomAccess(*r, &counters.table_read_bytes);
    }
    return s;
  }

  void Schedule(void (*function)(void*), void* arg) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      pending_++;
    }
    target()->Schedule(&RefEnv::Run, new Job{function, arg, this});
  }

  // Returns once no background work is scheduled or running. A job that
  // schedules the next one (LevelDB does, at its end) does so before it
  // returns, so the count never drops to 0 between the two.
  void WaitIdle() {
    std::unique_lock<std::mutex> l(mu_);
    idle_.wait(l, [this] { return pending_ == 0; });
  }

 private:
  struct Job {
    void (*function)(void*);
    void* arg;
    RefEnv* env;
  };

  static void Run(void* p) {
    std::unique_ptr<Job> job(static_cast<Job*>(p));
    job->function(job->arg);
    std::lock_guard<std::mutex> l(job->env->mu_);
    job->env->pending_--;
    job->env->idle_.notify_all();
  }

  std::atomic<uint64_t>* KindOf(const std::string& f) {
    if (EndsWith(f, ".log")) return &counters.log_write_bytes;
    if (IsTable(f)) return &counters.table_write_bytes;
    return &counters.other_write_bytes;
  }

  std::mutex mu_;
  std::condition_variable idle_;
  int pending_ = 0;
};

// LevelDB's info log, read for what it says about compactions instead of
// written to a LOG file: per level (the level written into), the merges
// ("Compacting a@L + b@L+1 files") and trivial moves ("Moved #N to level-L"),
// and per level compacted from, the inputs grown by "Expanding@L".
class CountingLogger : public leveldb::Logger {
 public:
  static const int kLevels = 7;
  std::atomic<uint64_t> merges[kLevels] = {};
  std::atomic<uint64_t> moves[kLevels] = {};
  std::atomic<uint64_t> expansions[kLevels] = {};

  void Logv(const char* format, std::va_list ap) override {
    char buf[512];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    int a, from, b, to;
    unsigned long long file;
    if (std::sscanf(buf, "Compacting %d@%d + %d@%d", &a, &from, &b, &to) == 4) {
      if (to >= 0 && to < kLevels) merges[to]++;
    } else if (std::sscanf(buf, "Moved #%llu to level-%d", &file, &to) == 2) {
      if (to >= 0 && to < kLevels) moves[to]++;
    } else if (std::sscanf(buf, "Expanding@%d", &from) == 1) {
      if (from >= 0 && from < kLevels) expansions[from]++;
    }
  }
};

[[noreturn]] void Die(const std::string& what) {
  std::cerr << "leveldb_ref: " << what << "\n";
  std::exit(2);
}

uint64_t ParseBytes(const char* flag, const char* text) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0') {
    Die(std::string(flag) + " `" + text + "`: expected a whole number");
  }
  return v;
}

struct Args {
  std::string db;
  uint64_t write_buffer_size = 4 << 20;
  uint64_t max_file_size = 2 << 20;
  uint64_t block_size = 4096;
  uint64_t bloom_bits = 10;
  bool settle = true;
  bool keep_db = false;
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i++) {
    std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--db") {
      a.db = value();
    } else if (flag == "--write-buffer-size") {
      a.write_buffer_size = ParseBytes("--write-buffer-size", value());
    } else if (flag == "--max-file-size") {
      a.max_file_size = ParseBytes("--max-file-size", value());
    } else if (flag == "--block-size") {
      a.block_size = ParseBytes("--block-size", value());
    } else if (flag == "--bloom-bits") {
      a.bloom_bits = ParseBytes("--bloom-bits", value());
    } else if (flag == "--settle") {
      a.settle = true;
    } else if (flag == "--background") {
      a.settle = false;
    } else if (flag == "--keep-db") {
      a.keep_db = true;
    } else {
      Die("unknown argument `" + flag + "`");
    }
  }
  if (a.db.empty()) Die("--db DIR is required");
  return a;
}

// One level's row of `leveldb.stats`: compaction bytes into that level
// (flushes count at the level their table was placed at), in MiB as
// LevelDB prints them (rounded to whole MiB).
struct LevelRow {
  int level;
  int files;
  double read_mib;
  double write_mib;
};

std::vector<LevelRow> ParseStats(const std::string& text) {
  std::vector<LevelRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    LevelRow r;
    double size_mib, secs;
    if (std::sscanf(line.c_str(), "%d %d %lf %lf %lf %lf", &r.level, &r.files,
                    &size_mib, &secs, &r.read_mib, &r.write_mib) == 6) {
      rows.push_back(r);
    }
  }
  return rows;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  RefEnv env;
  std::unique_ptr<const leveldb::FilterPolicy> filter(
      args.bloom_bits > 0 ? leveldb::NewBloomFilterPolicy(int(args.bloom_bits))
                          : nullptr);
  CountingLogger log;
  leveldb::Options options;
  options.env = &env;
  options.info_log = &log;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.compression = leveldb::kNoCompression;
  options.write_buffer_size = args.write_buffer_size;
  options.max_file_size = args.max_file_size;
  options.block_size = args.block_size;
  options.filter_policy = filter.get();
  leveldb::DestroyDB(args.db, options);
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, args.db, &raw);
  if (!s.ok()) Die("cannot open " + args.db + ": " + s.ToString());
  std::unique_ptr<leveldb::DB> db(raw);

  // Incompressible value bytes (compression is off anyway): a value of n
  // bytes is a window into this buffer, at an offset that moves per put.
  const size_t kPool = 1 << 20;
  std::vector<char> pool;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  uint64_t user_bytes = 0, puts = 0, deletes = 0, gets = 0, scans = 0;
  std::string line, key, got;
  leveldb::WriteOptions wo;
  leveldb::ReadOptions ro;
  uint64_t line_no = 0;
  while (std::getline(std::cin, line)) {
    line_no++;
    if (line.empty()) continue;
    char op = line[0];
    std::istringstream in(line.substr(1));
    uint64_t n = 0;
    in >> key;
    if (op == 'P' || op == 'S') in >> n;
    if (key.empty() || in.fail()) {
      Die("stdin line " + std::to_string(line_no) + ": `" + line +
          "` is not an operation");
    }
    if (op == 'P') {
      while (pool.size() < kPool + n) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pool.push_back(char(x >> 56));
      }
      size_t at = size_t(puts * 7919 % kPool);
      s = db->Put(wo, key, leveldb::Slice(pool.data() + at, n));
      user_bytes += key.size() + n;
      puts++;
    } else if (op == 'D') {
      s = db->Delete(wo, key);
      user_bytes += key.size();
      deletes++;
    } else if (op == 'G') {
      s = db->Get(ro, key, &got);
      if (s.IsNotFound()) s = leveldb::Status::OK();
      gets++;
    } else if (op == 'S') {
      std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ro));
      uint64_t seen = 0;
      for (it->Seek(key); it->Valid() && seen < n; it->Next()) seen++;
      s = it->status();
      scans++;
    } else {
      Die("stdin line " + std::to_string(line_no) + ": unknown operation `" +
          std::string(1, op) + "`");
    }
    if (!s.ok()) Die("line " + std::to_string(line_no) + ": " + s.ToString());
    if (args.settle) env.WaitIdle();
  }
  env.WaitIdle();
  std::string stats;
  db->GetProperty("leveldb.stats", &stats);
  std::vector<LevelRow> rows = ParseStats(stats);
  db.reset();
  if (!args.keep_db) leveldb::DestroyDB(args.db, options);

  std::printf("{\"leveldb_version\":\"%d.%d\",\"settle\":%s,", leveldb::kMajorVersion,
              leveldb::kMinorVersion, args.settle ? "true" : "false");
  std::printf(
      "\"puts\":%llu,\"deletes\":%llu,\"gets\":%llu,\"scans\":%llu,"
      "\"user_write_bytes\":%llu,",
      (unsigned long long)puts, (unsigned long long)deletes,
      (unsigned long long)gets, (unsigned long long)scans,
      (unsigned long long)user_bytes);
  std::printf(
      "\"log_write_bytes\":%llu,\"table_write_bytes\":%llu,"
      "\"table_read_bytes\":%llu,\"levels\":[",
      (unsigned long long)env.counters.log_write_bytes.load(),
      (unsigned long long)env.counters.table_write_bytes.load(),
      (unsigned long long)env.counters.table_read_bytes.load());
  for (size_t i = 0; i < rows.size(); i++) {
    int l = rows[i].level;
    bool known = l >= 0 && l < CountingLogger::kLevels;
    std::printf(
        "%s{\"level\":%d,\"files\":%d,\"read_mib\":%.0f,\"write_mib\":%.0f,"
        "\"merges\":%llu,\"moves\":%llu,\"expansions\":%llu}",
        i ? "," : "", l, rows[i].files, rows[i].read_mib, rows[i].write_mib,
        known ? (unsigned long long)log.merges[l].load() : 0ull,
        known ? (unsigned long long)log.moves[l].load() : 0ull,
        known ? (unsigned long long)log.expansions[l].load() : 0ull);
  }
  std::printf("],\"stats\":%s}\n", JsonString(stats).c_str());
  return 0;
}
