/* Func::memoize's cache (include/loom/runtime/loom_runtime.h): one per
 * process, shared by every pipeline and thread, guarded by one mutex.
 *
 * Entries sit in a list ordered by last use, most recent first. A lookup
 * walks it comparing keys (a memoized Func's entries are few: one per
 * distinct set of Param values and region still cached), and moves a hit to
 * the front; a store evicts from the back until the new entry fits the size
 * limit. Entries are copies: lookup copies the cached values into the
 * pipeline's buffer, store copies the buffer into the cache. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

typedef struct loom_memo_entry {
    struct loom_memo_entry *prev, *next;
    char *func_id;
    uint64_t *key;
    int32_t key_words;
    void *data;
    int64_t bytes;
    int32_t has_eviction_key;
    uint64_t eviction_key;
} loom_memo_entry;

static pthread_mutex_t memo_mutex = PTHREAD_MUTEX_INITIALIZER;
static loom_memo_entry *memo_head, *memo_tail;
static int64_t memo_used_bytes;
static int64_t memo_limit_bytes = 1 << 20;

static void *memo_alloc(size_t bytes) {
    size_t rounded = (bytes + 15) & ~(size_t)15;
    return aligned_alloc(16, rounded ? rounded : 16);
}

static int same_string(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static int same_key(const loom_memo_entry *e, const char *func_id, const uint64_t *key, int32_t key_words) {
    if (e->key_words != key_words || !same_string(e->func_id, func_id)) return 0;
    for (int32_t i = 0; i < key_words; i++) {
        if (e->key[i] != key[i]) return 0;
    }
    return 1;
}

static void unlink_entry(loom_memo_entry *e) {
    if (e->prev) e->prev->next = e->next; else memo_head = e->next;
    if (e->next) e->next->prev = e->prev; else memo_tail = e->prev;
    e->prev = e->next = 0;
}

static void push_front(loom_memo_entry *e) {
    e->prev = 0;
    e->next = memo_head;
    if (memo_head) memo_head->prev = e; else memo_tail = e;
    memo_head = e;
}

static void free_entry(loom_memo_entry *e) {
    unlink_entry(e);
    memo_used_bytes -= e->bytes;
    free(e->func_id);
    free(e->key);
    free(e->data);
    free(e);
}

static void evict_to(int64_t limit) {
    while (memo_tail && memo_used_bytes > limit) free_entry(memo_tail);
}

static loom_memo_entry *find(const char *func_id, const uint64_t *key, int32_t key_words) {
    for (loom_memo_entry *e = memo_head; e; e = e->next) {
        if (same_key(e, func_id, key, key_words)) return e;
    }
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_memoization_cache_lookup(void *user_context, const char *func_id, const uint64_t *key,
                                                      int32_t key_words, void *host, int64_t bytes) {
    (void)user_context;
    int found = 0;
    pthread_mutex_lock(&memo_mutex);
    loom_memo_entry *e = find(func_id, key, key_words);
    if (e && e->bytes == bytes) {
        memcpy(host, e->data, (size_t)bytes);
        unlink_entry(e);
        push_front(e);
        found = 1;
    }
    pthread_mutex_unlock(&memo_mutex);
    return found;
}

LOOM_RUNTIME_EXPORT int loom_memoization_cache_store(void *user_context, const char *func_id, const uint64_t *key,
                                                     int32_t key_words, const void *host, int64_t bytes,
                                                     int32_t has_eviction_key, uint64_t eviction_key) {
    (void)user_context;
    pthread_mutex_lock(&memo_mutex);
    loom_memo_entry *old = find(func_id, key, key_words);
    if (old) free_entry(old);
    if (bytes < 0 || bytes > memo_limit_bytes) {
        pthread_mutex_unlock(&memo_mutex);
        return 0;  /* too big to keep: computed again next time */
    }
    evict_to(memo_limit_bytes - bytes);
    size_t id_bytes = strlen(func_id) + 1;
    loom_memo_entry *e = (loom_memo_entry *)memo_alloc(sizeof(loom_memo_entry));
    char *id = (char *)memo_alloc(id_bytes);
    uint64_t *k = (uint64_t *)memo_alloc(sizeof(uint64_t) * (size_t)(key_words > 0 ? key_words : 1));
    void *data = memo_alloc((size_t)bytes);
    if (!e || !id || !k || !data) {
        free(e);
        free(id);
        free(k);
        free(data);
        pthread_mutex_unlock(&memo_mutex);
        return 0;  /* no memory for the cache: nothing is lost but the reuse */
    }
    memcpy(id, func_id, id_bytes);
    if (key_words > 0) memcpy(k, key, sizeof(uint64_t) * (size_t)key_words);
    memcpy(data, host, (size_t)bytes);
    e->func_id = id;
    e->key = k;
    e->key_words = key_words;
    e->data = data;
    e->bytes = bytes;
    e->has_eviction_key = has_eviction_key;
    e->eviction_key = eviction_key;
    push_front(e);
    memo_used_bytes += bytes;
    pthread_mutex_unlock(&memo_mutex);
    return 0;
}

LOOM_RUNTIME_EXPORT void loom_memoization_cache_set_size(int64_t bytes) {
    pthread_mutex_lock(&memo_mutex);
    memo_limit_bytes = bytes > 0 ? bytes : 0;
    evict_to(memo_limit_bytes);
    pthread_mutex_unlock(&memo_mutex);
}

LOOM_RUNTIME_EXPORT void loom_memoization_cache_evict(void *user_context, uint64_t eviction_key) {
    (void)user_context;
    pthread_mutex_lock(&memo_mutex);
    loom_memo_entry *e = memo_head;
    while (e) {
        loom_memo_entry *next = e->next;
        if (e->has_eviction_key && e->eviction_key == eviction_key) free_entry(e);
        e = next;
    }
    pthread_mutex_unlock(&memo_mutex);
}

LOOM_RUNTIME_EXPORT void loom_memoization_cache_cleanup(void) {
    pthread_mutex_lock(&memo_mutex);
    evict_to(-1);
    pthread_mutex_unlock(&memo_mutex);
}
