/*
 * map.h - script arrays: up to 9 keys (long or string), a long, string or
 * statistics value, a fixed pool of nodes allocated at load, hashing, and
 * iteration (unsorted = insertion order, or sorted, with limit and slices).
 *
 * Statistics arrays keep one map per CPU, each with its pool of
 * max_entries nodes allocated at load (HACKING.md counts the memory), and
 * one lock per CPU (m->locks): a[k] <<< v touches only this CPU's map and
 * takes only this CPU's lock, no lock of the global; a handler reading the
 * array takes the global's write lock and every CPU's lock (the lock
 * table's cpu member), then merges the CPUs' maps.
 */
#ifndef TAP_MAP_H
#define TAP_MAP_H

#define TAP_MAX_KEYS 9

enum tap_type { TAP_LONG = 1, TAP_STRING = 2, TAP_STATS = 3 };

union tap_key {
	int64_t l;
	const char *s;
};

struct tap_mnode {
	u32 hnext;		/* hash chain: node index + 1, 0 ends */
	u32 prev, next;		/* insertion order (or free list) */
	u32 hash;
	u32 gen;		/* bumped when freed, for iterators */
	u32 live;
	int64_t data[];		/* keys then value, see key_off/val_off */
};

struct tap_map {
	int nkeys;
	u8 key_types[TAP_MAX_KEYS];
	int val_type;
	bool wrap;
	struct tap_hist_spec spec;	/* statistics values */
	u32 max_entries, count, nbuckets;
	size_t node_size, key_off[TAP_MAX_KEYS], val_off;
	char *pool;
	u32 *buckets;
	u32 head, tail, free_head;
	struct tap_map **cpu;		/* statistics: this CPU's maps */
	struct tap_cpu_locks locks;	/* statistics, counters: the CPUs' locks */
	/* counters: each CPU's adds since the last fold, the keys those adds
	 * brought that the map lacks (numbered in the order they came, their
	 * seq), and a fold's cursor per CPU */
	struct tap_map **delta;
	atomic_t pending;
	u32 *fold_pos;
	size_t seq_off;			/* a CPU's map: where a node's seq is */
	struct tap_stat_data *stat_tmp;	/* tap_map_get_stat's result */
};

struct tap_context;

struct tap_iter {
	struct tap_map *m;
	u64 *v;			/* (gen << 32 | index) of each element */
	u32 n, pos;
	int64_t left;		/* limit, < 0 means none */
	struct tap_mnode *cur;
};

struct tap_map *tap_map_create(int nkeys, const u8 *key_types, int val_type,
			       const struct tap_hist_spec *spec, u32 max_entries, bool wrap);
void tap_map_destroy(struct tap_map *m);
struct tap_map *tap_map_create_counter(int nkeys, const u8 *key_types, u32 max_entries);
int tap_map_counter_add(struct tap_context *c, struct tap_map *m, const union tap_key *k,
			int64_t delta);

int64_t tap_map_get_long(struct tap_map *m, const union tap_key *k);
const char *tap_map_get_str(struct tap_map *m, const union tap_key *k);
int tap_map_set_long(struct tap_context *c, struct tap_map *m, const union tap_key *k, int64_t v);
int tap_map_add_long(struct tap_context *c, struct tap_map *m, const union tap_key *k,
		     int64_t delta, int64_t *result);
int tap_map_set_str(struct tap_context *c, struct tap_map *m, const union tap_key *k,
		    const char *s);
int tap_map_stat_add(struct tap_context *c, struct tap_map *m, const union tap_key *k, int64_t v);
const struct tap_stat_data *tap_map_get_stat(struct tap_map *m, const union tap_key *k);

bool tap_map_exists(struct tap_map *m, const union tap_key *k);
bool tap_map_exists_match(struct tap_map *m, const union tap_key *k, unsigned int wild);
void tap_map_delete(struct tap_map *m, const union tap_key *k);
void tap_map_delete_match(struct tap_map *m, const union tap_key *k, unsigned int wild);
void tap_map_clear(struct tap_map *m);
int64_t tap_map_size(struct tap_context *c, struct tap_map *m);

int tap_map_iter_begin(struct tap_context *c, struct tap_iter *it, struct tap_map *m,
		       const union tap_key *k, unsigned int wild, int sort_col, int dir,
		       int agg_op, int64_t limit);
bool tap_map_iter_next(struct tap_iter *it);
void tap_map_iter_end(struct tap_context *c, struct tap_iter *it);

static inline char *tap_node_field(const struct tap_map *m, const struct tap_mnode *n, size_t off)
{
	(void)m;	/* kept so a layout change needs no caller edits */
	return (char *)n->data + off;
}

static inline int64_t tap_iter_key_long(const struct tap_iter *it, int i)
{
	return *(int64_t *)tap_node_field(it->m, it->cur, it->m->key_off[i]);
}

static inline const char *tap_iter_key_str(const struct tap_iter *it, int i)
{
	return tap_node_field(it->m, it->cur, it->m->key_off[i]);
}

static inline int64_t tap_iter_long(const struct tap_iter *it)
{
	return *(int64_t *)tap_node_field(it->m, it->cur, it->m->val_off);
}

static inline const char *tap_iter_str(const struct tap_iter *it)
{
	return tap_node_field(it->m, it->cur, it->m->val_off);
}

static inline const struct tap_stat_data *tap_iter_stat(const struct tap_iter *it)
{
	return (const struct tap_stat_data *)tap_node_field(it->m, it->cur, it->m->val_off);
}

#endif /* TAP_MAP_H */
