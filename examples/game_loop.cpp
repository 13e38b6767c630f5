// game_loop.cpp — the game loop host in C++17, through the C API: the
// library's objects in std::unique_ptr with their free functions, the
// frame's events in std::vectors reserved once, a row group every few
// simulated seconds, and the writer's allocator counting so the steady
// frames can be seen to allocate nothing.
//
//     game_loop_cpp [OUT.parquet] [SECONDS]

#include <inlay.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct schema_free {
    void operator()(inlay_schema *s) const { inlay_schema_free(s); }
};
struct writer_free {
    void operator()(inlay_writer *w) const { inlay_writer_free(w); }
};
using schema_ptr = std::unique_ptr<inlay_schema, schema_free>;
using writer_ptr = std::unique_ptr<inlay_writer, writer_free>;

// The writer's worker threads call the allocator too: atomic counters.
struct counter {
    std::atomic<std::uint64_t> calls{ 0 };
    std::atomic<std::size_t> live{ 0 };
};

void *counting_alloc(void *ud, void *ptr, std::size_t osize, std::size_t nsize)
{
    auto *c = static_cast<counter *>(ud);
    if (nsize == 0) {
        c->live -= osize;
        std::free(ptr);
        return nullptr;
    }
    if (nsize > osize) c->calls++;
    void *p = std::realloc(ptr, nsize);
    if (p) c->live += nsize - osize;
    return p;
}

constexpr int fps = 60;
constexpr std::size_t max_events = 300;
constexpr std::array<std::string_view, 4> kinds{ "move", "shoot", "hit", "pickup" };

// One frame's events, in buffers the host reuses.
struct frame {
    std::vector<std::int64_t> ts, tick;
    std::vector<inlay_bytes> kind;
    std::vector<double> value;
    std::vector<std::int16_t> value_def;
    std::size_t nvalues = 0;

    frame() : ts(max_events), tick(max_events), kind(max_events), value(max_events), value_def(max_events) {}

    std::size_t fill(std::int64_t n_frame)
    {
        std::uint64_t r = static_cast<std::uint64_t>(n_frame) * 2654435761u + 7;
        const std::size_t n = 100 + static_cast<std::size_t>(n_frame % 200);
        nvalues = 0;
        for (std::size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            const auto k = kinds[(r >> 33) % kinds.size()];
            ts[i] = 1717200000000000 + n_frame * 1000000 / fps + static_cast<std::int64_t>(i);
            tick[i] = n_frame;
            kind[i] = inlay_bytes{ k.data(), k.size() };
            value_def[i] = k == "hit";
            if (value_def[i]) value[nvalues++] = static_cast<double>((r >> 40) % 1000) / 10.0;
        }
        return n;
    }
};

bool check(inlay_writer *w, int st, const char *what)
{
    if (st == INLAY_OK) return true;
    std::fprintf(stderr, "game_loop_cpp: %s: %s\n", what, inlay_writer_errmsg(w));
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    const std::string out = argc > 1 ? argv[1] : "game_loop_cpp.parquet";
    const long seconds = argc > 2 ? std::atol(argv[2]) : 20;
    if (seconds < 4) {
        std::fprintf(stderr, "game_loop_cpp: at least 4 seconds\n");
        return 2;
    }

    schema_ptr s{ inlay_schema_create(nullptr) };
    if (!s || inlay_schema_add(s.get(), 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), nullptr) < 0 ||
        inlay_schema_add(s.get(), 0, "tick", INLAY_REQUIRED, inlay_type_int(64, true), nullptr) < 0 ||
        inlay_schema_add(s.get(), 0, "kind", INLAY_REQUIRED, inlay_type_string(), nullptr) < 0 ||
        inlay_schema_add(s.get(), 0, "value", INLAY_OPTIONAL, inlay_type_double(), nullptr) < 0) {
        std::fprintf(stderr, "game_loop_cpp: schema: %s\n", s ? inlay_schema_errmsg(s.get()) : "out of memory");
        return 1;
    }

    counter count;
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = inlay_allocator{ counting_alloc, &count };
    inlay_writer *raw = nullptr;
    const int opened = inlay_writer_open_file(&raw, out.c_str(), s.get(), &o);
    writer_ptr w{ raw };
    if (!check(w.get(), opened, "open")) return 1;

    frame f;
    const std::int64_t frames = seconds * fps, warm = frames / 2;
    std::uint64_t steady_allocs = 0, rows = 0;
    for (std::int64_t n = 0; n < frames; n++) {
        const std::size_t count_rows = f.fill(n);
        const std::array<inlay_column_batch, 4> batches{ {
            { 0, f.ts.data(), count_rows, {} },
            { 1, f.tick.data(), count_rows, {} },
            { 2, f.kind.data(), count_rows, {} },
            { 3, f.value.data(), count_rows, { f.value_def.data(), nullptr, nullptr } },
        } };
        const std::uint64_t before = count.calls;
        if (!check(w.get(), inlay_writer_append_columns(w.get(), batches.data(), 4), "append")) return 1;
        if ((n + 1) % (2 * fps) == 0 && !check(w.get(), inlay_writer_flush_row_group(w.get()), "flush")) return 1;
        if (n >= warm) steady_allocs += count.calls - before;
        rows += count_rows;
    }
    if (!check(w.get(), inlay_writer_close(w.get()), "close")) return 1;
    const std::uint64_t written = inlay_writer_rows(w.get());
    std::printf("game_loop_cpp: %llu rows in %llu row groups; %llu allocations in the last %lld frames\n",
                static_cast<unsigned long long>(rows), static_cast<unsigned long long>(inlay_writer_row_groups(w.get())),
                static_cast<unsigned long long>(steady_allocs), static_cast<long long>(frames - warm));
    w.reset();
    s.reset();
    return count.live == 0 && written == rows && steady_allocs == 0 ? 0 : 1;
}
