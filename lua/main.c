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
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <inlay.h>

#include "lembed.h"
#include "linit.h"

static const char *progname = "inlay";
static lua_State *globalL;

/* ---- messages ---------------------------------------------------------------- */

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: inlay [options] [JOB.lua [ARGS...]]\n"
            "       inlay run [--max-memory SIZE] [--max-instructions N] JOB.lua [ARGS...]\n"
            "       inlay convert IN OUT [--schema FILE.lua | --infer] [--compression C] [--quiet]\n"
            "\n"
            "Runs a Lua 5.4 job with the inlay module loaded (the global `inlay`, or\n"
            "require \"inlay\"); `arg` holds ARGS as in lua5.4. Without a job or -e it\n"
            "starts a REPL, which reads lines from stdin when it is not a terminal.\n"
            "\n"
            "options:\n"
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
            "convert: CSV or NDJSON (by extension, .gz/.zst too; - is stdin) to Parquet;\n"
            "`inlay convert --help` lists its options.\n");
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
    setsignal(SIGINT, laction);
    int status = lua_pcall(L, narg, nres, base);
    setsignal(SIGINT, SIG_DFL);
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

enum { HAS_E = 1, HAS_I = 2, HAS_V = 4, HAS_H = 8, BAD = 16 };

/* Sets *script to the index of the job (0 if none). */
static int collectargs(char **argv, int *script)
{
    int flags = 0;
    *script = 0;
    if (argv[1] && strcmp(argv[1], "run") == 0) {
        if (!argv[2]) return BAD;
        *script = 2;
        return 0;
    }
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            *script = i;
            return flags;
        }
        if (strcmp(a, "--") == 0) {
            if (argv[i + 1]) *script = i + 1;
            return flags;
        }
        if (strcmp(a, "-e") == 0) {
            if (!argv[++i]) return BAD;
            flags |= HAS_E;
        } else if (strcmp(a, "-i") == 0) flags |= HAS_I;
        else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) flags |= HAS_V;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) flags |= HAS_H;
        else return BAD;
    }
    return flags;
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

static int runargs(lua_State *L, char **argv, int script)
{
    int last = script ? script : (int)0x7fffffff;
    for (int i = 1; argv[i] && i < last; i++) {
        if (strcmp(argv[i], "-e") == 0) {
            if (dostring(L, argv[++i], "=(command line)") != LUA_OK) return 0;
        }
    }
    return 1;
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

static int pmain(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = (char **)lua_touserdata(L, 2);
    int script;
    luaL_checkversion(L);
    if (argv[1] && strcmp(argv[1], "convert") == 0) {   /* inlay._convert (inlay.lua) does the work */
        inl_lua_open_libs(L);
        lua_getfield(L, -1, "_convert");
        lua_createtable(L, argc, 0);
        for (int i = 2; i < argc; i++) {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, i - 1);
        }
        /* a bad input is the user's data, not a script: the message without a traceback */
        if (report(L, lua_pcall(L, 1, 1, 0)) != LUA_OK) return 0;
        lua_pushboolean(L, lua_toboolean(L, -1));
        return 1;
    }
    int flags = collectargs(argv, &script);
    if (flags & BAD) {
        print_usage(stderr);
        return 0;
    }
    if (flags & HAS_H) {
        print_usage(stdout);
        lua_pushboolean(L, 1);
        return 1;
    }
    if (flags & HAS_V) {
        printf("inlay %s (%s)\n", inlay_version(), LUA_RELEASE);
        if (!(flags & (HAS_E | HAS_I)) && !script) {
            lua_pushboolean(L, 1);
            return 1;
        }
    }
    inl_lua_open_libs(L);
    lua_pop(L, 1);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, os_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    createargtable(L, argv, argc, script);
    lua_gc(L, LUA_GCRESTART);
    lua_gc(L, LUA_GCGEN, 0, 0);
    if (!runargs(L, argv, script)) return 0;
    if (script && handle_script(L, argv + script) != LUA_OK) return 0;
    if ((flags & HAS_I) || (!script && !(flags & (HAS_E | HAS_V)))) doREPL(L);
    lua_pushboolean(L, 1);
    return 1;
}

/* "512M" and the like: a byte count with an optional K, M or G (powers of
 * 1024). False when s is not one, or zero. */
static void *libc_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

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

/* Takes --max-memory and --max-instructions (also as --opt=value) out of
 * argv, from the options before the job (after "run", or before the first
 * argument that is not an option). Returns false on a bad value. */
static bool take_limits(int *argc, char **argv, inl_lua_budget *b)
{
    int i = argv[1] && strcmp(argv[1], "run") == 0 ? 2 : 1;
    while (argv[i] && argv[i][0] == '-' && strcmp(argv[i], "-") != 0 && strcmp(argv[i], "--") != 0) {
        const char *a = argv[i];
        const bool mem = strncmp(a, "--max-memory", 12) == 0 && (a[12] == '\0' || a[12] == '=');
        const bool ins = strncmp(a, "--max-instructions", 18) == 0 && (a[18] == '\0' || a[18] == '=');
        if (!mem && !ins) {
            i += strcmp(a, "-e") == 0 && argv[i + 1] ? 2 : 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        const char *val = eq ? eq + 1 : argv[i + 1];
        const int used = eq ? 1 : 2;
        uint64_t v;
        if (!val || !parse_size(val, &v)) {
            fprintf(stderr, "%s: %s needs a positive %s\n", progname, mem ? "--max-memory" : "--max-instructions",
                    mem ? "size (512M, 2G ...)" : "count");
            return false;
        }
        if (mem) b->max_memory = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
        else b->max_instructions = v;
        for (int k = i; k + used <= *argc; k++) argv[k] = argv[k + used];
        *argc -= used;
    }
    return true;
}

static inl_lua_budget limits;

int main(int argc, char **argv)
{
    limits.base.fn = NULL;
    if (!take_limits(&argc, argv, &limits)) return EXIT_FAILURE;
    lua_State *L;
    if (limits.max_memory || limits.max_instructions) {
        limits.base.fn = libc_alloc;
        L = lua_newstate(inl_lua_budget_alloc, &limits);
    } else {
        L = luaL_newstate();
    }
    if (L == NULL) {
        l_message(argv[0], "cannot create state: not enough memory");
        return EXIT_FAILURE;
    }
    if (limits.max_instructions) inl_lua_budget_start(L, &limits);
    lua_gc(L, LUA_GCSTOP);
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    int status = lua_pcall(L, 2, 1, 0);
    int result = lua_toboolean(L, -1);
    report(L, status);
    lua_close(L);
    return (result && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
}
