/*
 * main.c — the `inlay` command: job scripts, -e chunks and the REPL, with
 * the inlay module loaded (global `inlay`, and `require "inlay"`).
 *
 * Shaped after lua.c: pmain runs under lua_pcall, so every error is
 * reported the same way; a message handler adds a traceback; SIGINT during
 * a call raises "interrupted!" in Lua through a hook. The state is always
 * closed with lua_close, also after an error and in os.exit (whose `close`
 * argument defaults to true here), so the __gc of every writer still open
 * runs and nothing half-written is published.
 *
 * The REPL reads a line, tries it as an expression ("return " .. line),
 * else as a statement, and keeps reading while the parser stops at
 * <eof>. Results are printed with inlay.pretty. Input comes through
 * libedit (line editing, history in ~/.inlay_history, tab completion of
 * globals, fields and methods) when stdin is a terminal, and through
 * getline otherwise, so the REPL can be driven through a pipe.
 *
 * `inlay inspect`, `head` and `cat` read a Parquet file without Lua: they
 * are parsed and run here, before any state is made (lprint.c prints).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <inlay.h>

#include "lconv.h"
#include "lembed.h"
#include "lerror.h"
#include "linit.h"
#include "lprint.h"
#include "lwriter.h"

static const char *progname = "inlay";
static lua_State *globalL;

/* Exit statuses, as --help documents them. */
enum { EXIT_USAGE = 2, EXIT_IO = 3 };

/* ---- messages ---------------------------------------------------------------- */

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: inlay [options] [JOB.lua [ARGS...]]\n"
            "       inlay run [--max-memory SIZE] [--max-instructions N] JOB.lua [ARGS...]\n"
            "       inlay convert [options] IN... OUT\n"
            "       inlay inspect FILE [--json]\n"
            "       inlay head FILE [-n N] [--columns A,B]\n"
            "       inlay cat FILE [--format csv|ndjson] [--columns A,B]\n"
            "\n"
            "Runs a Lua 5.4 job with the inlay module loaded (the global `inlay`, or\n"
            "require \"inlay\"); `arg` holds ARGS as in lua5.4. Without a job or -e it\n"
            "starts a REPL, which reads lines from stdin when it is not a terminal.\n"
            "\n"
            "options (short flags combine, -ie CODE; --opt value or --opt=value):\n"
            "  -e CODE        run CODE (may be given several times)\n"
            "  -i             start the REPL after the job or the -e chunks\n"
            "  -              run the job read from stdin\n"
            "  --             stop handling options\n"
            "  -v, --version  print the version\n"
            "  -h, --help     print this help\n"
            "  --max-memory SIZE        end the job when the state would hold more than SIZE\n"
            "                           bytes (K, M or G for KiB, MiB, GiB)\n"
            "  --max-instructions N     end the job after N Lua instructions\n"
            "\n"
            "convert: CSV or NDJSON (also gzip or zstd compressed; - is stdin), or\n"
            "Parquet, to Parquet (- is stdout) with the codec, level, row group and page\n"
            "sizes asked (--compression snappy, gzip:9, lz4, brotli, zstd:19...);\n"
            "`inlay convert --help` lists its options and the codecs of this build.\n"
            "inspect, head, cat: a Parquet file's footer (schema, row groups, column\n"
            "chunks and statistics), its first rows as a table, or all of its rows\n"
            "as CSV or NDJSON; `inlay head --help` and the like say more.\n"
            "\n"
            "A job runs with every library (io, os): run only jobs you trust. SIGINT,\n"
            "SIGTERM and SIGHUP end a job or a conversion and remove the files it was\n"
            "writing (nothing half-written is published).\n"
            "\n"
            "exit status: 0 done; 1 the job failed or the data was bad; 2 bad command\n"
            "line; 3 input or output failed; 128+N ended by signal N (130 SIGINT,\n"
            "143 SIGTERM).\n");
}

/* "inlay: msg" on stderr; the module's own messages carry the prefix already. */
static void l_message(const char *pname, const char *msg)
{
    if (pname && strncmp(msg, "inlay: ", 7) != 0) fprintf(stderr, "%s: ", pname);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
}

static int report(lua_State *L, int status)
{
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        l_message(progname, msg ? msg : "(error object is not a string)");
        lua_pop(L, 1);
    }
    return status;
}

/* ---- calling Lua, as lua.c does ---------------------------------------------- */

static void setsignal(int sig, void (*handler)(int))
{
    struct sigaction sa;
    sa.sa_handler = handler;
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void lstop(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted!");
}

static void laction(int sig)
{
    int flag = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
    setsignal(sig, SIG_DFL);
    lua_sethook(globalL, lstop, flag, 1);
}

/* ---- stopping on a signal ------------------------------------------------------- */

/* SIGINT, SIGTERM (what timeout, systemd and Kubernetes send) and SIGHUP end
 * a job or a conversion at once, wherever it is (a blocking read included):
 * the handler removes the temporary of every file still being written and
 * exits 128 + the signal. unlink and _exit are async-signal-safe; the paths
 * are copied in here when a writer opens (inl_lua_temp_hook), so the
 * handler reads nothing the interrupted code may be changing. From just
 * before a writer creates its temporary until the path is copied in, the
 * signals wait (hold_temps), or one in between would leave the file; the
 * library's threads block them, so only this thread's mask matters. The REPL
 * keeps lua.c's Ctrl-C instead, which interrupts the line and keeps the
 * session. More writers than MAX_TEMPS at once: the others' temporaries are
 * left, for the next writer of that target to clean up. */
enum { MAX_TEMPS = 64 };
static struct {
    volatile sig_atomic_t live;
    char path[PATH_MAX];
} temps[MAX_TEMPS];
static bool repl_signals;

static void note_temp(const char *path, int live)
{
    for (int i = 0; i < MAX_TEMPS; i++) {
        if (live && !temps[i].live && strlen(path) < sizeof temps[i].path) {
            strcpy(temps[i].path, path);
            temps[i].live = 1;
            return;
        }
        if (!live && temps[i].live && strcmp(temps[i].path, path) == 0) {
            temps[i].live = 0;
            return;
        }
    }
}

static sigset_t held_signals, mask_before_hold;
static int hold_depth;

static void hold_temps(int hold)
{
    if (hold) {
        if (hold_depth++ == 0) pthread_sigmask(SIG_BLOCK, &held_signals, &mask_before_hold);
    } else if (hold_depth > 0 && --hold_depth == 0) {
        pthread_sigmask(SIG_SETMASK, &mask_before_hold, NULL);   /* a signal that came runs stop_now here */
    }
}

static void stop_now(int sig)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i].live) unlink(temps[i].path);
    _exit(128 + sig);
}

static void stop_signals(bool stop)
{
    inl_lua_temp_hook = note_temp;
    inl_lua_temp_hold = hold_temps;
    sigemptyset(&held_signals);
    sigaddset(&held_signals, SIGINT);
    sigaddset(&held_signals, SIGTERM);
    sigaddset(&held_signals, SIGHUP);
    repl_signals = !stop;
    if (stop) setsignal(SIGINT, stop_now);
    setsignal(SIGTERM, stop_now);
    setsignal(SIGHUP, stop_now);
}

/* ---- what inlay._convert needs from the system (inlay._cli) ----------------- */

/* What stat found: kind ("file", "directory", "fifo", "character device",
 * "block device", "socket"), device, inode; or nil, the system's message
 * and errno. */
static int push_stat(lua_State *L, int rc, const struct stat *st)
{
    if (rc != 0) {
        const int e = errno;
        luaL_pushfail(L);
        lua_pushstring(L, strerror(e));
        lua_pushinteger(L, e);
        return 3;
    }
    const char *kind = S_ISREG(st->st_mode)    ? "file"
                       : S_ISDIR(st->st_mode)  ? "directory"
                       : S_ISFIFO(st->st_mode) ? "fifo"
                       : S_ISCHR(st->st_mode)  ? "character device"
                       : S_ISBLK(st->st_mode)  ? "block device"
                       : S_ISSOCK(st->st_mode) ? "socket"
                                               : "special file";
    lua_pushstring(L, kind);
    lua_pushinteger(L, (lua_Integer)st->st_dev);
    lua_pushinteger(L, (lua_Integer)st->st_ino);
    return 3;
}

/* stat(path): symlinks are followed, what counts is the file they lead to. */
static int cli_stat(lua_State *L)
{
    struct stat st;
    return push_stat(L, stat(luaL_checkstring(L, 1), &st), &st);
}

/* fstat(fd): 0 is stdin, 1 stdout. */
static int cli_fstat(lua_State *L)
{
    struct stat st;
    return push_stat(L, fstat((int)luaL_checkinteger(L, 1), &st), &st);
}

static const luaL_Reg cli_functions[] = {
    { "stat", cli_stat },
    { "fstat", cli_fstat },
    { NULL, NULL },
};

static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int docall(lua_State *L, int narg, int nres)
{
    int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    globalL = L;
    if (repl_signals) setsignal(SIGINT, laction);
    int status = lua_pcall(L, narg, nres, base);
    if (repl_signals) setsignal(SIGINT, SIG_DFL);
    lua_remove(L, base);
    return status;
}

static int dochunk(lua_State *L, int status)
{
    if (status == LUA_OK) status = docall(L, 0, 0);
    return report(L, status);
}

static int dostring(lua_State *L, const char *s, const char *name)
{
    return dochunk(L, luaL_loadbuffer(L, s, strlen(s), name));
}

/* os.exit(code, close): closes the state unless close is false, so
 * writers still open are aborted by their __gc. */
static int os_exit(lua_State *L)
{
    int status;
    if (lua_isboolean(L, 1)) status = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
    else status = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
    if (lua_isnoneornil(L, 2) || lua_toboolean(L, 2)) lua_close(L);
    exit(status);
    return 0;
}

/* ---- the REPL -------------------------------------------------------------------- */

static int interactive;
static char history_path[4096];

/* Tab completion: the word before the cursor is an expression like
 * `inlay.ti` or `w:wr`; look up what is left of the last '.' or ':' from the
 * globals (tables with rawget, other values through a table __index) and
 * offer the keys that start with what is right of it. */
static lua_State *completion_L;
static char **matches;
static size_t nmatches, next_match;

static void free_matches(void)
{
    for (size_t i = next_match; i < nmatches; i++) free(matches[i]);
    free(matches);
    matches = NULL;
    nmatches = next_match = 0;
}

static void add_match(const char *prefix, size_t plen, const char *key)
{
    char **m = realloc(matches, (nmatches + 1) * sizeof *m);
    if (!m) return;
    matches = m;
    size_t klen = strlen(key);
    char *s = malloc(plen + klen + 1);
    if (!s) return;
    memcpy(s, prefix, plen);
    memcpy(s + plen, key, klen + 1);
    matches[nmatches++] = s;
}

/* Push the table whose keys v (at the top) offers: v itself when it is a
 * table, else its metatable's __index when that is a table; or nil. */
static void push_keys_of(lua_State *L)
{
    if (lua_istable(L, -1)) return;
    int top = lua_gettop(L);
    if (lua_getmetatable(L, top) && lua_getfield(L, -1, "__index") == LUA_TTABLE) {
        lua_replace(L, top);
        lua_settop(L, top);
        return;
    }
    lua_settop(L, top - 1);
    lua_pushnil(L);
}

static int is_ident(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static void collect_matches(lua_State *L, const char *text)
{
    static const char *const keywords[] = {
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
        "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", NULL,
    };
    int top = lua_gettop(L);
    const char *sep = NULL;
    for (const char *p = text; *p; p++)
        if (*p == '.' || *p == ':') sep = p;
    const char *word = sep ? sep + 1 : text;
    size_t wlen = strlen(word);
    int methods = sep && *sep == ':';
    lua_pushglobaltable(L);
    if (sep) {   /* walk the path left of the separator */
        const char *p = text;
        while (p < sep) {
            const char *e = p;
            while (e < sep && *e != '.' && *e != ':') e++;
            push_keys_of(L);
            if (lua_isnil(L, -1)) goto done;
            lua_pushlstring(L, p, (size_t)(e - p));
            lua_rawget(L, -2);
            lua_remove(L, -2);
            p = e + 1;
        }
    }
    push_keys_of(L);
    if (!lua_istable(L, -1)) goto done;
    for (int level = 0; level < 4 && lua_istable(L, -1); level++) {   /* and inherited __index tables */
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            if (lua_type(L, -2) == LUA_TSTRING && (!methods || lua_isfunction(L, -1))) {
                const char *k = lua_tostring(L, -2);
                if (strncmp(k, word, wlen) == 0 && is_ident(k)) add_match(text, (size_t)(word - text), k);
            }
            lua_pop(L, 1);
        }
        if (!lua_getmetatable(L, -1)) break;
        lua_getfield(L, -1, "__index");
        lua_remove(L, -2);
    }
    if (!sep)
        for (int i = 0; keywords[i]; i++)
            if (strncmp(keywords[i], word, wlen) == 0) add_match("", 0, keywords[i]);
done:
    lua_settop(L, top);
}

static char *completion_entry(const char *text, int state)
{
    if (state == 0) {
        free_matches();
        collect_matches(completion_L, text);
    }
    if (next_match < nmatches) return matches[next_match++];   /* libedit frees it */
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, completion_entry);
}

static void save_history(void)
{
    if (history_path[0]) write_history(history_path);
}

static void init_line_editing(lua_State *L)
{
    completion_L = L;
    rl_readline_name = "inlay";
    rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,+-*/%^~#[]";
    rl_completion_append_character = '\0';
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(1000);
    const char *home = getenv("HOME");
    const char *file = getenv("INLAY_HISTORY");
    if (file) snprintf(history_path, sizeof history_path, "%s", file);
    else if (home) snprintf(history_path, sizeof history_path, "%s/.inlay_history", home);
    if (history_path[0]) read_history(history_path);
    atexit(save_history);
}

/* One line, without its newline; NULL at the end of input. Caller frees. */
static char *read_line(const char *prompt)
{
    if (interactive) return readline(prompt);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
    return line;
}

static const char *get_prompt(lua_State *L, int firstline)
{
    if (lua_getglobal(L, firstline ? "_PROMPT" : "_PROMPT2") == LUA_TNIL)
        return firstline ? "> " : ">> ";
    const char *p = luaL_tolstring(L, -1, NULL);
    lua_remove(L, -2);   /* the string stays on the stack while the line is read */
    return p;
}

static int pushline(lua_State *L, int firstline)
{
    int top = lua_gettop(L);
    char *line = read_line(interactive ? get_prompt(L, firstline) : "");
    lua_settop(L, top);
    if (!line) return 0;
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (firstline && line[0] == '=') lua_pushfstring(L, "return %s", line + 1);
    else lua_pushlstring(L, line, len);
    free(line);
    return 1;
}

static void saveline(const char *line)
{
    if (interactive && line[0]) add_history(line);
}

/* The parser stopped at the end of the input: read more. */
static int incomplete(lua_State *L, int status)
{
    if (status == LUA_ERRSYNTAX) {
        size_t lmsg;
        const char *msg = lua_tolstring(L, -1, &lmsg);
        static const char mark[] = "<eof>";
        if (lmsg >= sizeof mark - 1 && strcmp(msg + lmsg - (sizeof mark - 1), mark) == 0) {
            lua_pop(L, 1);
            return 1;
        }
    }
    return 0;
}

static int addreturn(lua_State *L)
{
    const char *line = lua_tostring(L, -1);
    const char *retline = lua_pushfstring(L, "return %s;", line);
    int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
    if (status == LUA_OK) {
        lua_remove(L, -2);
        saveline(line);
    } else {
        lua_pop(L, 2);
    }
    return status;
}

static int multiline(lua_State *L)
{
    for (;;) {
        size_t len;
        const char *line = lua_tolstring(L, 1, &len);
        int status = luaL_loadbuffer(L, line, len, "=stdin");
        if (!incomplete(L, status) || !pushline(L, 0)) {
            saveline(line);
            return status;
        }
        lua_pushliteral(L, "\n");
        lua_insert(L, -2);
        lua_concat(L, 3);
    }
}

static int loadline(lua_State *L)
{
    lua_settop(L, 0);
    if (!pushline(L, 1)) return -1;
    int status = addreturn(L);
    if (status != LUA_OK) status = multiline(L);
    lua_remove(L, 1);
    return status;
}

/* Print the results on the stack with inlay.pretty, tab-separated. */
static void print_results(lua_State *L)
{
    int n = lua_gettop(L);
    if (n == 0) return;
    luaL_checkstack(L, 8, "too many results to print");
    for (int i = 1; i <= n; i++) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getfield(L, -1, "inlay");
        if (lua_istable(L, -1)) lua_getfield(L, -1, "pretty");
        else lua_pushnil(L);
        int ok = 0;
        if (lua_isfunction(L, -1)) {
            lua_pushvalue(L, i);
            ok = lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING;
        }
        if (!ok) {
            lua_pop(L, 1);
            luaL_tolstring(L, i, NULL);
        }
        fputs(lua_tostring(L, -1), stdout);
        fputs(i < n ? "\t" : "\n", stdout);
        lua_settop(L, n);
    }
    fflush(stdout);
}

static void doREPL(lua_State *L)
{
    const char *oldprogname = progname;
    progname = NULL;
    interactive = isatty(STDIN_FILENO);
    if (interactive) {
        init_line_editing(L);
        printf("inlay %s (%s); Ctrl-D to quit\n", inlay_version(), LUA_RELEASE);
    }
    int status;
    while ((status = loadline(L)) != -1) {
        if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
        if (status == LUA_OK) print_results(L);
        else report(L, status);
    }
    lua_settop(L, 0);
    if (interactive) {
        putchar('\n');
        free_matches();
    }
    fflush(stdout);
    progname = oldprogname;
}

/* ---- arguments ---------------------------------------------------------------------- */

/* What the command line asks for. Parsed once, before any Lua runs, so a bad
 * option is a usage error (exit 2) that names the option. */
typedef struct cli {
    enum { CMD_LUA, CMD_RUN, CMD_CONVERT } cmd;
    bool interactive, version, help;
    int script;                /* argv index of the job, 0 for none */
    const char **chunks;       /* -e CODE, in order */
    int nchunks;
    inl_lua_budget limits;
} cli;

static int usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see %s --help)\n", progname);
    return EXIT_USAGE;
}

static bool parse_size(const char *s, uint64_t *out);

/* A long option's name matches `name` exactly or as "name=value". */
static bool long_is(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* --max-memory and --max-instructions: the value after '=' or in the next
 * argument. */
static int take_limit(cli *c, char **argv, int *i)
{
    const char *a = argv[*i];
    const bool mem = long_is(a, "--max-memory");
    const char *eq = strchr(a, '=');
    const char *val = eq ? eq + 1 : argv[++*i];
    uint64_t v;
    if (!val || !parse_size(val, &v)) {
        fprintf(stderr, "%s: %s needs a positive %s\n", progname, mem ? "--max-memory" : "--max-instructions",
                mem ? "size (512M, 2G ...)" : "count");
        return EXIT_USAGE;
    }
    if (mem) c->limits.max_memory = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    else c->limits.max_instructions = v;
    return 0;
}

/* Options as lua5.4 takes them, and as getopt_long does: -e CODE or
 * -eCODE, flags combined (-iv), --opt value or --opt=value, -- ends the
 * options, - is the job read from stdin. `inlay run` takes the limits and
 * --help only, `inlay convert` its own (inlay._convert). Returns 0, or
 * EXIT_USAGE after saying what is wrong. */
static int parse_args(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    int i = 1;
    if (argv[1] && strcmp(argv[1], "convert") == 0) {
        c->cmd = CMD_CONVERT;
        return 0;
    }
    if (argv[1] && strcmp(argv[1], "run") == 0) c->cmd = CMD_RUN, i = 2;
    c->chunks = calloc((size_t)argc + 1, sizeof *c->chunks);
    if (!c->chunks) {
        fprintf(stderr, "%s: not enough memory\n", progname);
        return EXIT_FAILURE;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            c->script = i;
            break;
        }
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc) c->script = i + 1;
            break;
        }
        if (a[1] == '-') {
            if (long_is(a, "--max-memory") || long_is(a, "--max-instructions")) {
                int st = take_limit(c, argv, &i);
                if (st) return st;
            } else if (strcmp(a, "--help") == 0) {
                c->help = true;
            } else if (strcmp(a, "--version") == 0 && c->cmd == CMD_LUA) {
                c->version = true;
            } else if (long_is(a, "--help") || long_is(a, "--version")) {
                return usage_error("option '%s' takes no value", a);
            } else {
                return usage_error("unknown option '%s'", a);
            }
            continue;
        }
        for (const char *p = a + 1; *p; p++) {
            const char flag[3] = { '-', *p, '\0' };
            if (*p == 'h') {
                c->help = true;
            } else if (c->cmd == CMD_RUN) {
                return usage_error("unknown option '%s' for inlay run", flag);
            } else if (*p == 'i') {
                c->interactive = true;
            } else if (*p == 'v') {
                c->version = true;
            } else if (*p == 'e') {   /* the rest of the argument, or the next one */
                const char *code = p[1] ? p + 1 : argv[++i];
                if (!code) return usage_error("option '%s' needs a value", flag);
                c->chunks[c->nchunks++] = code;
                break;
            } else {
                return usage_error("unknown option '%s'", flag);
            }
        }
    }
    if (c->cmd == CMD_RUN && !c->script && !c->help) {
        fprintf(stderr, "%s: inlay run needs a job (inlay run JOB.lua)\n", progname);
        return EXIT_USAGE;
    }
    return 0;
}

/* ---- inspect, head and cat: reading a file ------------------------------------ */

/* The reader commands and what their command lines say. Options go
 * anywhere among the arguments, as getopt_long permutes them. */
typedef struct read_cli {
    enum { READ_INSPECT, READ_HEAD, READ_CAT } cmd;
    const char *name;          /* "inspect", "head" or "cat" */
    const char *file;
    const char *columns;
    size_t rows;
    inl_lua_print_format format;
    bool json, help;
} read_cli;

static void print_read_usage(FILE *f, const read_cli *rc)
{
    switch (rc->cmd) {
    case READ_INSPECT:
        fputs("usage: inlay inspect FILE [--json]\n"
              "\n"
              "What a Parquet file's footer says: its schema with logical types,\n"
              "created_by, key-value metadata (long base64 values such as ARROW:schema\n"
              "shown by length), and per row group its rows and sizes and per column\n"
              "chunk its type, codec, encodings, sizes, value and null counts, min and\n"
              "max (\"(inexact)\" where the writer truncated one), and the bytes of its\n"
              "column index, offset index and bloom filter (- when it has none).\n"
              "\n"
              "  --json      the same as one JSON object (on one line)\n",
              f);
        break;
    case READ_HEAD:
        fputs("usage: inlay head FILE [-n N] [--columns A,B]\n"
              "\n"
              "The first rows of a Parquet file as an aligned table; only those rows\n"
              "are read. Nulls show as NULL, nested values as JSON, long values are cut.\n"
              "\n"
              "  -n, --rows N      how many rows (default 10)\n"
              "  --columns A,B     these top-level columns, in this order\n",
              f);
        break;
    case READ_CAT:
        fputs("usage: inlay cat FILE [--format csv|ndjson] [--columns A,B]\n"
              "\n"
              "Every row of a Parquet file, read batch by batch in constant memory.\n"
              "CSV (the default): a header, RFC 4180 quoting, a null as an empty field\n"
              "and an empty string as \"\". NDJSON: one object per line, null for nulls.\n"
              "Nested values are JSON; dates and times ISO 8601 (timestamps adjusted to\n"
              "UTC end in Z); decimals exact; binary as \\xHH escapes; NaN and\n"
              "infinities are nan, inf, -inf in CSV and null in NDJSON.\n"
              "\n"
              "  --format F        csv or ndjson\n"
              "  --columns A,B     these top-level columns, in this order\n",
              f);
        break;
    }
    fputs("  -h, --help        this help\n"
          "  --                the rest is FILE, even if it starts with -\n"
          "\n"
          "exit status: 0 done; 1 not a Parquet file, or a corrupt one; 2 bad\n"
          "command line (an unknown option or column); 3 the file could not be\n"
          "read, or the output written.\n",
          f);
}

static int read_usage_error(const read_cli *rc, const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see %s %s --help)\n", progname, rc->name);
    return EXIT_USAGE;
}

/* One option: `name` is what follows the dashes ("json", "n"), `value` the
 * text after '=' or NULL; *i moves past a value taken from the next
 * argument. */
static int read_option(read_cli *rc, const char *shown, const char *name, const char *value, char **argv, int *i)
{
    const bool head = rc->cmd == READ_HEAD, cat = rc->cmd == READ_CAT;
    const bool takes = ((head || cat) && strcmp(name, "columns") == 0) ||
                       (head && (strcmp(name, "n") == 0 || strcmp(name, "rows") == 0)) ||
                       (cat && strcmp(name, "format") == 0);
    const bool flag = strcmp(name, "help") == 0 || strcmp(name, "h") == 0 ||
                      (rc->cmd == READ_INSPECT && strcmp(name, "json") == 0);
    if (!takes && !flag) return read_usage_error(rc, "unknown option '%s'", shown);
    if (flag) {
        if (value) return read_usage_error(rc, "option '%s' takes no value", shown);
        if (name[0] == 'h') rc->help = true;
        else rc->json = true;
        return 0;
    }
    if (!value) value = argv[++*i];
    if (!value) return read_usage_error(rc, "option '%s' needs a value", shown);
    if (strcmp(name, "columns") == 0) {
        rc->columns = value;
    } else if (strcmp(name, "format") == 0) {
        if (strcmp(value, "csv") == 0) rc->format = INL_LUA_PRINT_CSV;
        else if (strcmp(value, "ndjson") == 0) rc->format = INL_LUA_PRINT_NDJSON;
        else return read_usage_error(rc, "--format is csv or ndjson, got '%s'", value);
    } else {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(value, &end, 10);
        if (!*value || *end || value[0] == '-' || errno || n > SIZE_MAX)
            return read_usage_error(rc, "-n needs a number of rows, got '%s'", value);
        rc->rows = (size_t)n;
    }
    return 0;
}

static int parse_read_args(int argc, char **argv, read_cli *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->name = argv[1];
    rc->cmd = strcmp(argv[1], "inspect") == 0 ? READ_INSPECT : strcmp(argv[1], "head") == 0 ? READ_HEAD : READ_CAT;
    rc->rows = INL_LUA_PRINT_HEAD_ROWS;
    bool options = true;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int st = 0;
        if (options && strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        if (options && a[0] == '-' && a[1] == '-') {
            char name[64];
            const char *eq = strchr(a, '=');
            const size_t len = eq ? (size_t)(eq - a) : strlen(a);
            if (len >= sizeof name) return read_usage_error(rc, "unknown option '%s'", a);
            memcpy(name, a, len);
            name[len] = '\0';
            st = read_option(rc, name, name + 2, eq ? eq + 1 : NULL, argv, &i);
        } else if (options && a[0] == '-' && a[1]) {
            for (const char *p = a + 1; *p && !st; p++) {
                const char flag[3] = { '-', *p, '\0' };
                const char name[2] = { *p, '\0' };
                if (*p == 'n' && rc->cmd == READ_HEAD) {   /* -n5 or -n 5 */
                    st = read_option(rc, flag, name, p[1] ? p + 1 : NULL, argv, &i);
                    break;
                }
                st = read_option(rc, flag, name, NULL, argv, &i);
            }
        } else if (rc->file) {
            st = read_usage_error(rc, "one FILE only, got another: '%s'", a);
        } else {
            rc->file = a;
        }
        if (st) return st;
    }
    if (rc->help) return 0;
    if (!rc->file) return read_usage_error(rc, "%s needs a Parquet FILE", rc->name);
    if (strcmp(rc->file, "-") == 0) {
        fprintf(stderr, "%s: %s cannot read stdin: a Parquet file is read from its end, so it must be a file "
                        "(save the stream to one first)\n", progname, rc->name);
        return EXIT_USAGE;
    }
    return 0;
}

/* The exit status for a reader's or printer's status. */
static int read_exit(int status)
{
    return status == INLAY_ERR_COLUMN ? EXIT_USAGE : status == INLAY_ERR_IO ? EXIT_IO : EXIT_FAILURE;
}

static int run_read(int argc, char **argv)
{
    read_cli rc;
    int st = parse_read_args(argc, argv, &rc);
    if (st) return st;
    if (rc.help) {
        print_read_usage(stdout, &rc);
        return EXIT_SUCCESS;
    }
    inlay_reader *r = NULL;
    st = inlay_reader_open_file(&r, rc.file, NULL);
    if (st) {
        fprintf(stderr, "%s: %s\n", progname, r ? inlay_reader_errmsg(r) : inlay_strerror(st));
        inlay_reader_free(r);
        return read_exit(st);
    }
    char err[1024] = "";
    switch (rc.cmd) {
    case READ_INSPECT: st = inl_lua_print_inspect(r, rc.file, rc.json, stdout, err, sizeof err); break;
    case READ_HEAD: st = inl_lua_print_head(r, rc.columns, rc.rows, stdout, err, sizeof err); break;
    case READ_CAT: st = inl_lua_print_cat(r, rc.columns, rc.format, stdout, err, sizeof err); break;
    }
    inlay_reader_free(r);
    if (st == INLAY_OK) return EXIT_SUCCESS;
    fflush(stdout);
    /* the reader's messages while reading name a row group, not the file */
    if (err[0] == '\'' || st == INLAY_ERR_COLUMN || st == INLAY_ERR_NOMEM) fprintf(stderr, "%s: %s\n", progname, err);
    else fprintf(stderr, "%s: '%s': %s\n", progname, rc.file, err);
    return read_exit(st);
}

/* arg[0] is the job, arg[1..] its arguments, arg[-k] what came before. */
static void createargtable(lua_State *L, char **argv, int argc, int script)
{
    lua_createtable(L, argc - script - 1 > 0 ? argc - script - 1 : 0, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

static int handle_script(lua_State *L, char **argv)
{
    const char *fname = argv[0];
    if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0) fname = NULL;   /* stdin */
    int status = luaL_loadfile(L, fname);
    if (status == LUA_OK) {
        int n = 0;
        while (argv[n + 1]) n++;
        luaL_checkstack(L, n + 3, "too many arguments to the job");
        for (int i = 1; i <= n; i++) lua_pushstring(L, argv[i]);
        status = docall(L, n, LUA_MULTRET);
    }
    return report(L, status);
}

/* The exit status for an error the binding raised: 3 when the library said
 * the sink or an input failed, 1 for everything else (bad data, a failing
 * job). A table error with a numeric `code` (the command line's own usage
 * errors) carries its status. */
static int error_status(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TTABLE) {
        int code = lua_getfield(L, idx, "code") == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : EXIT_FAILURE;
        lua_pop(L, 1);
        return code;
    }
    return inl_lua_last_status(L) == INLAY_ERR_IO ? EXIT_IO : EXIT_FAILURE;
}

/* inlay convert: inlay._convert (inlay.lua) does the work, with the few
 * things it needs from the system here (inlay._cli). A bad input is the
 * user's data, not a script: the message without a traceback. */
static int run_convert(lua_State *L, int argc, char **argv)
{
    inl_lua_open_libs(L);
    lua_newtable(L);
    luaL_setfuncs(L, cli_functions, 0);
    lua_setfield(L, -2, "_cli");
    lua_getfield(L, -1, "_convert");
    lua_createtable(L, argc, 0);
    for (int i = 2; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - 1);
    }
    inl_lua_clear_status(L);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) return lua_toboolean(L, -1) ? EXIT_SUCCESS : EXIT_FAILURE;
    int code = error_status(L, -1);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_getfield(L, -1, "msg");
        lua_replace(L, -2);
    }
    report(L, LUA_ERRRUN);
    return code;
}

static int pmain(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = (char **)lua_touserdata(L, 2);
    cli *c = lua_touserdata(L, 3);
    luaL_checkversion(L);
    if (c->cmd == CMD_CONVERT) {
        lua_pushinteger(L, run_convert(L, argc, argv));
        return 1;
    }
    if (c->help) {
        print_usage(stdout);
        lua_pushinteger(L, EXIT_SUCCESS);
        return 1;
    }
    if (c->version) {
        printf("inlay %s (%s)\n", inlay_version(), LUA_RELEASE);
        if (!c->nchunks && !c->interactive && !c->script) {
            lua_pushinteger(L, EXIT_SUCCESS);
            return 1;
        }
    }
    inl_lua_open_libs(L);
    lua_pop(L, 1);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, os_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    createargtable(L, argv, argc, c->script);
    lua_gc(L, LUA_GCRESTART);
    lua_gc(L, LUA_GCGEN, 0, 0);
    inl_lua_clear_status(L);
    for (int k = 0; k < c->nchunks; k++) {
        if (dostring(L, c->chunks[k], "=(command line)") != LUA_OK) {
            lua_pushinteger(L, inl_lua_last_status(L) == INLAY_ERR_IO ? EXIT_IO : EXIT_FAILURE);
            return 1;
        }
    }
    if (c->script && handle_script(L, argv + c->script) != LUA_OK) {
        lua_pushinteger(L, inl_lua_last_status(L) == INLAY_ERR_IO ? EXIT_IO : EXIT_FAILURE);
        return 1;
    }
    if (c->interactive || (!c->script && !c->nchunks && !c->version)) doREPL(L);
    lua_pushinteger(L, EXIT_SUCCESS);
    return 1;
}

/* "512M" and the like: a byte count with an optional K, M or G (powers of
 * 1024). False when s is not one, or zero. */
static bool parse_size(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (p == s) return false;
    int shift = 0;
    if (*p == 'K' || *p == 'k') shift = 10, p++;
    else if (*p == 'M' || *p == 'm') shift = 20, p++;
    else if (*p == 'G' || *p == 'g') shift = 30, p++;
    if (*p || v == 0 || (shift && v > (UINT64_MAX >> shift))) return false;
    *out = v << shift;
    return true;
}

static cli args;

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "inspect") == 0 || strcmp(argv[1], "head") == 0 || strcmp(argv[1], "cat") == 0))
        return run_read(argc, argv);
    int st = parse_args(argc, argv, &args);
    if (st) return st;
    lua_State *L;
    if (args.limits.max_memory || args.limits.max_instructions) {
        args.limits.base.fn = inl_lua_libc_alloc;
        inl_lua_alloc_mark_safe((void *)inl_lua_budget_alloc);
        L = lua_newstate(inl_lua_budget_alloc, &args.limits);
    } else {
        L = luaL_newstate();
        /* the same functions as lauxlib's, under a name the writer knows
         * to be thread-safe (its workers allocate through it) */
        if (L) lua_setallocf(L, inl_lua_libc_alloc, NULL);
    }
    if (L == NULL) {
        l_message(argv[0], "cannot create state: not enough memory");
        return EXIT_FAILURE;
    }
    if (args.limits.max_instructions) inl_lua_budget_start(L, &args.limits);
    /* A job or a conversion that is told to stop removes what it was writing
     * and exits; the REPL keeps lua.c's Ctrl-C, which interrupts the line. */
    const bool repl = args.cmd == CMD_LUA && (args.interactive || (!args.script && !args.nchunks && !args.version));
    stop_signals(!repl);
    lua_gc(L, LUA_GCSTOP);
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    lua_pushlightuserdata(L, &args);
    int status = lua_pcall(L, 3, 1, 0);
    int code = status == LUA_OK ? (int)lua_tointeger(L, -1) : EXIT_FAILURE;
    report(L, status);
    lua_close(L);
    free(args.chunks);
    return code;
}
