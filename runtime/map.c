/*
 * map.c - script arrays on a fixed node pool.
 *
 * Nodes are addressed by index + 1 (0 = none) so the links stay small.
 * Live nodes are on a doubly linked list in insertion order: that is the
 * unsorted iteration order, and its head is the entry a wrapping ('%')
 * array replaces when full.
 */
#include "tap.h"

#define TAP_NODE(m, i) ((struct tap_mnode *)((m)->pool + (size_t)((i) - 1) * (m)->node_size))

static size_t tap_align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t tap_type_size(const struct tap_map *m, int type)
{
	switch (type) {
	case TAP_LONG:
		return sizeof(int64_t);
	case TAP_STRING:
		return MAXSTRINGLEN;
	default:
		return tap_stat_data_size(&m->spec);
	}
}

static void tap_map_free_one(struct tap_map *m)
{
	if (!m)
		return;
	tap_free(m->pool);
	tap_free(m->buckets);
	tap_free(m->stat_tmp);
	tap_free(m);
}

static struct tap_map *tap_map_alloc(int nkeys, const u8 *key_types, int val_type,
				     const struct tap_hist_spec *spec, u32 max_entries,
				     bool wrap, bool seq)
{
	struct tap_map *m;
	size_t off = 0;
	u32 i;
	int k;

	if (nkeys < 1 || nkeys > TAP_MAX_KEYS || !max_entries)
		return NULL;
	m = tap_alloc(sizeof(*m));
	if (!m)
		return NULL;
	m->nkeys = nkeys;
	m->val_type = val_type;
	m->wrap = wrap;
	m->max_entries = max_entries;
	if (spec)
		m->spec = *spec;
	if (tap_hist_spec_init(&m->spec))
		goto err_free;
	for (k = 0; k < nkeys; k++) {
		m->key_types[k] = key_types[k];
		m->key_off[k] = off;
		off += tap_align8(tap_type_size(m, key_types[k]));
	}
	m->val_off = off;
	off += tap_align8(tap_type_size(m, val_type));
	if (seq) {
		m->seq_off = off;
		off += sizeof(int64_t);
	}
	m->node_size = sizeof(struct tap_mnode) + off;

	m->nbuckets = 1;
	while (m->nbuckets < max_entries)
		m->nbuckets <<= 1;
	if (MAPHASHBIAS > 0)
		m->nbuckets <<= MAPHASHBIAS;
	else if (MAPHASHBIAS < 0 && m->nbuckets >> -MAPHASHBIAS)
		m->nbuckets >>= -MAPHASHBIAS;

	m->pool = tap_alloc(m->node_size * max_entries);
	m->buckets = tap_alloc(m->nbuckets * sizeof(u32));
	if (!m->pool || !m->buckets)
		goto err_free;
	if (val_type == TAP_STATS) {
		m->stat_tmp = tap_alloc(tap_stat_data_size(&m->spec));
		if (!m->stat_tmp)
			goto err_free;
	}
	for (i = 1; i <= max_entries; i++)
		TAP_NODE(m, i)->next = i < max_entries ? i + 1 : 0;
	m->free_head = 1;
	return m;
err_free:
	tap_map_free_one(m);
	return NULL;
}

/* max_entries 0 means MAXMAPENTRIES.  Called at module init only. */
struct tap_map *tap_map_create(int nkeys, const u8 *key_types, int val_type,
			       const struct tap_hist_spec *spec, u32 max_entries, bool wrap)
{
	struct tap_map *m;
	unsigned int cpu;

	if (!max_entries)
		max_entries = MAXMAPENTRIES;
	m = tap_map_alloc(nkeys, key_types, val_type, spec, max_entries, wrap, false);
	if (!m)
		return NULL;
	if (max_entries > tap_max_map_entries)
		tap_max_map_entries = max_entries;
	if (val_type != TAP_STATS)
		return m;
	m->cpu = tap_alloc(nr_cpu_ids * sizeof(*m->cpu));
	if (!m->cpu)
		goto err_destroy;
	/* each CPU's lock on a cache line of its own */
	m->locks.stride = 64;
	m->locks.base = tap_alloc(nr_cpu_ids * m->locks.stride);
	if (!m->locks.base)
		goto err_destroy;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		m->cpu[cpu] = tap_map_alloc(nkeys, key_types, val_type, spec,
					    max_entries, wrap, false);
		if (!m->cpu[cpu])
			goto err_destroy;
	}
	return m;
err_destroy:
	tap_map_destroy(m);
	return NULL;
}

void tap_map_destroy(struct tap_map *m)
{
	unsigned int cpu;

	if (!m)
		return;
	if (m->cpu) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			tap_map_free_one(m->cpu[cpu]);
		tap_free(m->cpu);
	}
	if (m->delta) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			tap_map_free_one(m->delta[cpu]);
		tap_free(m->delta);
	}
	tap_free(m->fold_pos);
	tap_free(m->locks.base);
	tap_map_free_one(m);
}

static u32 tap_key_hash(const struct tap_map *m, const union tap_key *k)
{
	u32 h = 2166136261u;
	const unsigned char *p;
	int i, j;

	for (i = 0; i < m->nkeys; i++) {
		if (m->key_types[i] == TAP_LONG) {
			u64 v = (u64)k[i].l;

			for (j = 0; j < 8; j++, v >>= 8)
				h = (h ^ (v & 0xff)) * 16777619u;
		} else {
			for (p = (const unsigned char *)k[i].s, j = 0; *p && j < MAXSTRINGLEN - 1;
			     p++, j++)
				h = (h ^ *p) * 16777619u;
			h = (h ^ 0xff) * 16777619u;	/* ("a","b") != ("ab","") */
		}
	}
	return h;
}

/* Keys compare as stored: strings are cut at MAXSTRINGLEN - 1 bytes. */
static bool tap_key_match(const struct tap_map *m, const struct tap_mnode *n,
			  const union tap_key *k, unsigned int wild)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		const char *f = tap_node_field(m, n, m->key_off[i]);

		if (wild & (1u << i))
			continue;
		if (m->key_types[i] == TAP_LONG) {
			if (*(const int64_t *)f != k[i].l)
				return false;
		} else if (strncmp(f, k[i].s, MAXSTRINGLEN - 1)) {
			return false;
		}
	}
	return true;
}

static u32 tap_map_find(const struct tap_map *m, const union tap_key *k, u32 hash)
{
	u32 i = m->buckets[hash & (m->nbuckets - 1)];

	while (i) {
		struct tap_mnode *n = TAP_NODE(m, i);

		if (n->hash == hash && tap_key_match(m, n, k, 0))
			return i;
		i = n->hnext;
	}
	return 0;
}

static void tap_map_unlink(struct tap_map *m, u32 i)
{
	struct tap_mnode *n = TAP_NODE(m, i);
	u32 *pp = &m->buckets[n->hash & (m->nbuckets - 1)];

	while (*pp != i)
		pp = &TAP_NODE(m, *pp)->hnext;
	*pp = n->hnext;
	if (n->prev)
		TAP_NODE(m, n->prev)->next = n->next;
	else
		m->head = n->next;
	if (n->next)
		TAP_NODE(m, n->next)->prev = n->prev;
	else
		m->tail = n->prev;
	n->live = 0;
	n->gen++;
	n->next = m->free_head;
	m->free_head = i;
	m->count--;
}

/* A new zeroed node holding key k; NULL (and an error) when full. */
static struct tap_mnode *tap_map_insert(struct tap_context *c, struct tap_map *m,
					const union tap_key *k, u32 hash)
{
	struct tap_mnode *n;
	u32 i, b;
	int j;

	if (!m->free_head) {
		if (!m->wrap || !m->head) {
			if (c)
				tap_error(c, "Array overflow, check MAXMAPENTRIES");
			return NULL;
		}
		tap_map_unlink(m, m->head);	/* wrap: the oldest goes */
	}
	i = m->free_head;
	n = TAP_NODE(m, i);
	m->free_head = n->next;
	memset(n->data, 0, m->node_size - sizeof(*n));
	for (j = 0; j < m->nkeys; j++) {
		char *f = tap_node_field(m, n, m->key_off[j]);

		if (m->key_types[j] == TAP_LONG)
			*(int64_t *)f = k[j].l;
		else
			tap_strlcpy(f, k[j].s, MAXSTRINGLEN);
	}
	n->hash = hash;
	n->live = 1;
	b = hash & (m->nbuckets - 1);
	n->hnext = m->buckets[b];
	m->buckets[b] = i;
	n->prev = m->tail;
	n->next = 0;
	if (m->tail)
		TAP_NODE(m, m->tail)->next = i;
	else
		m->head = i;
	m->tail = i;
	m->count++;
	return n;
}

static struct tap_mnode *tap_map_lookup(const struct tap_map *m, const union tap_key *k)
{
	u32 i = tap_map_find(m, k, tap_key_hash(m, k));

	return i ? TAP_NODE(m, i) : NULL;
}

static struct tap_mnode *tap_map_get_or_insert(struct tap_context *c, struct tap_map *m,
					       const union tap_key *k)
{
	u32 hash = tap_key_hash(m, k);
	u32 i = tap_map_find(m, k, hash);

	return i ? TAP_NODE(m, i) : tap_map_insert(c, m, k, hash);
}

int64_t tap_map_get_long(struct tap_map *m, const union tap_key *k)
{
	struct tap_mnode *n = tap_map_lookup(m, k);

	return n ? *(int64_t *)tap_node_field(m, n, m->val_off) : 0;
}

const char *tap_map_get_str(struct tap_map *m, const union tap_key *k)
{
	struct tap_mnode *n = tap_map_lookup(m, k);

	return n ? tap_node_field(m, n, m->val_off) : "";
}

int tap_map_set_long(struct tap_context *c, struct tap_map *m, const union tap_key *k, int64_t v)
{
	struct tap_mnode *n = tap_map_get_or_insert(c, m, k);

	if (!n)
		return -1;
	*(int64_t *)tap_node_field(m, n, m->val_off) = v;
	return 0;
}

int tap_map_add_long(struct tap_context *c, struct tap_map *m, const union tap_key *k,
		     int64_t delta, int64_t *result)
{
	struct tap_mnode *n = tap_map_get_or_insert(c, m, k);
	int64_t *p;

	if (!n)
		return -1;
	p = (int64_t *)tap_node_field(m, n, m->val_off);
	*p = tap_add(*p, delta);
	if (result)
		*result = *p;
	return 0;
}

int tap_map_set_str(struct tap_context *c, struct tap_map *m, const union tap_key *k,
		    const char *s)
{
	struct tap_mnode *n = tap_map_get_or_insert(c, m, k);

	if (!n)
		return -1;
	tap_str_assign(tap_node_field(m, n, m->val_off), s);
	return 0;
}

/*
 * a[k] <<< v: this CPU's map, under this CPU's lock of a (taken here, or
 * by the handler's lock table, see tap_cpu_trylock).  A new
 * key takes a node of this CPU's own pool: each CPU holds up to
 * max_entries keys of its own.
 */
int tap_map_stat_add(struct tap_context *c, struct tap_map *m, const union tap_key *k, int64_t v)
{
	unsigned int cpu = smp_processor_id();
	struct tap_map *pm = m->cpu ? m->cpu[cpu] : m;
	atomic_t *l = m->cpu ? tap_cpu_lock_of(&m->locks, cpu) : NULL;
	struct tap_mnode *n;
	int held = 0;

	if (l && (held = tap_cpu_trylock(c, l)) < 0)
		return -1;
	n = tap_map_get_or_insert(c, pm, k);
	if (n)
		tap_stat_data_add(&pm->spec,
				  (struct tap_stat_data *)tap_node_field(pm, n, pm->val_off), v);
	if (l && !held)
		tap_cpu_release(l);
	return n ? 0 : -1;
}

/* All CPUs' partials of one key, merged; count 0 when it is absent. */
const struct tap_stat_data *tap_map_get_stat(struct tap_map *m, const union tap_key *k)
{
	unsigned int cpu;
	struct tap_mnode *n;

	memset(m->stat_tmp, 0, tap_stat_data_size(&m->spec));
	if (!m->cpu) {
		n = tap_map_lookup(m, k);
		return n ? (struct tap_stat_data *)tap_node_field(m, n, m->val_off) : m->stat_tmp;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		n = tap_map_lookup(m->cpu[cpu], k);
		if (n)
			tap_stat_data_merge(&m->spec, m->stat_tmp,
					    (struct tap_stat_data *)tap_node_field(m, n, m->val_off));
	}
	return m->stat_tmp;
}

bool tap_map_exists(struct tap_map *m, const union tap_key *k)
{
	return tap_map_exists_match(m, k, 0);
}

static bool tap_map_any_match(struct tap_map *m, const union tap_key *k, unsigned int wild)
{
	u32 i;

	if (!wild)
		return tap_map_lookup(m, k) != NULL;
	for (i = m->head; i; i = TAP_NODE(m, i)->next)
		if (tap_key_match(m, TAP_NODE(m, i), k, wild))
			return true;
	return false;
}

/* [k1, *, k3] in a: `wild` has bit i set for each '*' column. */
bool tap_map_exists_match(struct tap_map *m, const union tap_key *k, unsigned int wild)
{
	unsigned int cpu;

	if (!m->cpu)
		return tap_map_any_match(m, k, wild);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (tap_map_any_match(m->cpu[cpu], k, wild))
			return true;
	return false;
}

static void tap_map_delete_one(struct tap_map *m, const union tap_key *k, unsigned int wild)
{
	u32 i, next;

	if (!wild) {
		i = tap_map_find(m, k, tap_key_hash(m, k));
		if (i)
			tap_map_unlink(m, i);
		return;
	}
	for (i = m->head; i; i = next) {
		next = TAP_NODE(m, i)->next;
		if (tap_key_match(m, TAP_NODE(m, i), k, wild))
			tap_map_unlink(m, i);
	}
}

void tap_map_delete(struct tap_map *m, const union tap_key *k)
{
	tap_map_delete_match(m, k, 0);
}

void tap_map_delete_match(struct tap_map *m, const union tap_key *k, unsigned int wild)
{
	unsigned int cpu;

	tap_map_delete_one(m, k, wild);
	if (m->cpu)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			tap_map_delete_one(m->cpu[cpu], k, wild);
}

static void tap_map_clear_one(struct tap_map *m)
{
	while (m->head)
		tap_map_unlink(m, m->head);
}

void tap_map_clear(struct tap_map *m)
{
	unsigned int cpu;

	tap_map_clear_one(m);
	if (m->cpu)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			tap_map_clear_one(m->cpu[cpu]);
}

/* The keys of node n of a CPU's map pm, as a tuple for the shared map. */
static void tap_node_keys(const struct tap_map *pm, struct tap_mnode *n, union tap_key *k)
{
	int j;

	for (j = 0; j < pm->nkeys; j++) {
		char *f = tap_node_field(pm, n, pm->key_off[j]);

		if (pm->key_types[j] == TAP_LONG)
			k[j].l = *(int64_t *)f;
		else
			k[j].s = f;
	}
}

/* Rebuild a statistics map's merged view from the CPUs' maps. */
static int tap_map_aggregate(struct tap_context *c, struct tap_map *m)
{
	unsigned int cpu;
	union tap_key k[TAP_MAX_KEYS];
	u32 i;

	if (!m->cpu)
		return 0;
	tap_map_clear_one(m);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct tap_map *pm = m->cpu[cpu];

		for (i = pm->head; i; i = TAP_NODE(pm, i)->next) {
			struct tap_mnode *src = TAP_NODE(pm, i), *dst;

			tap_node_keys(pm, src, k);
			dst = tap_map_get_or_insert(c, m, k);
			if (!dst)
				return -1;
			tap_stat_data_merge(&m->spec,
					    (struct tap_stat_data *)tap_node_field(m, dst, m->val_off),
					    (struct tap_stat_data *)tap_node_field(pm, src, pm->val_off));
		}
	}
	return 0;
}

/* ---- counters ---- */

static int64_t *tap_delta_seq(const struct tap_map *pm, struct tap_mnode *n)
{
	return (int64_t *)tap_node_field(pm, n, pm->seq_off);
}

/* One CPU's add of a fold: into the map (which has room, see
 * tap_map_counter_add), then out of the CPU's map. */
static void tap_fold_one(struct tap_map *m, struct tap_map *pm, u32 i)
{
	union tap_key k[TAP_MAX_KEYS];
	struct tap_mnode *n = TAP_NODE(pm, i);

	tap_node_keys(pm, n, k);
	tap_map_add_long(NULL, m, k, *(int64_t *)tap_node_field(pm, n, pm->val_off), NULL);
}

/*
 * The reader holds every CPU's word: each CPU's adds go into the map.
 * Keys the map had already take their sums in any order; the keys it
 * lacked are put in the order they first came on any CPU (their seq),
 * so unsorted foreach sees them in the order one shared map would.
 */
static void tap_map_counter_fold(struct tap_cpu_locks *pl)
{
	struct tap_map *m = container_of(pl, struct tap_map, locks);
	unsigned int cpu, best;
	int64_t seq, min;
	u32 i;

	if (!atomic_read(&m->pending)) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct tap_map *pm = m->delta[cpu];

			for (i = pm->head; i; i = TAP_NODE(pm, i)->next)
				tap_fold_one(m, pm, i);
			tap_map_clear_one(pm);
		}
		return;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct tap_map *pm = m->delta[cpu];

		for (i = pm->head; i; i = TAP_NODE(pm, i)->next)
			if (!*tap_delta_seq(pm, TAP_NODE(pm, i)))
				tap_fold_one(m, pm, i);
		m->fold_pos[cpu] = pm->head;
	}
	/* each CPU's list is in its seq order: merge them */
	for (;;) {
		best = nr_cpu_ids;
		min = 0;
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct tap_map *pm = m->delta[cpu];

			while (m->fold_pos[cpu] &&
			       !*tap_delta_seq(pm, TAP_NODE(pm, m->fold_pos[cpu])))
				m->fold_pos[cpu] = TAP_NODE(pm, m->fold_pos[cpu])->next;
			if (!m->fold_pos[cpu])
				continue;
			seq = *tap_delta_seq(pm, TAP_NODE(pm, m->fold_pos[cpu]));
			if (best == nr_cpu_ids || seq < min) {
				best = cpu;
				min = seq;
			}
		}
		if (best == nr_cpu_ids)
			break;
		i = m->fold_pos[best];
		tap_fold_one(m, m->delta[best], i);
		m->fold_pos[best] = TAP_NODE(m->delta[best], i)->next;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		tap_map_clear_one(m->delta[cpu]);
	atomic_set(&m->pending, 0);
}

/* A map of longs only ever added to: one map of adds per CPU beside it,
 * each with max_entries nodes.  Called at module init only. */
struct tap_map *tap_map_create_counter(int nkeys, const u8 *key_types, u32 max_entries)
{
	struct tap_map *m = tap_map_create(nkeys, key_types, TAP_LONG, NULL, max_entries, false);
	unsigned int cpu;

	if (!m)
		return NULL;
	m->delta = tap_alloc(nr_cpu_ids * sizeof(*m->delta));
	m->fold_pos = tap_alloc(nr_cpu_ids * sizeof(*m->fold_pos));
	m->locks.stride = 64;
	m->locks.fold = tap_map_counter_fold;
	m->locks.base = tap_alloc(nr_cpu_ids * m->locks.stride);
	if (!m->delta || !m->fold_pos || !m->locks.base)
		goto err_destroy;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		m->delta[cpu] = tap_map_alloc(nkeys, key_types, TAP_LONG, NULL, m->max_entries,
					      false, true);
		if (!m->delta[cpu])
			goto err_destroy;
	}
	return m;
err_destroy:
	tap_map_destroy(m);
	return NULL;
}

/*
 * A new key when the entries left may all be taken: perhaps by keys new
 * on several CPUs at once (each CPU counts its own), so count them
 * exactly, as a reader would: every CPU's word, the fold, then the add to
 * the array itself, which overflows exactly when one shared array would.
 */
static int tap_map_counter_add_whole(struct tap_context *c, struct tap_map *m,
				     const union tap_key *k, int64_t delta, int own)
{
	int r;

	if (tap_cpu_lock_others(c, &m->locks, own))
		return -1;
	r = tap_map_add_long(c, m, k, delta, NULL);
	tap_cpu_unlock_others(&m->locks);
	return r;
}

/*
 * m[k] += delta: this CPU's map of adds, under this CPU's word (taken
 * here, or by the lock table); a handler holding every word (it reads m
 * too) folded them at its start and adds to m itself.
 *
 * The map only changes under every word, so an adder may look at it: a
 * key it lacks is new, and takes one of the entries left (m->pending),
 * numbered in the order they come.  A key new on two CPUs between two
 * reads takes two, so once none seems left the adder counts them
 * exactly (tap_map_counter_add_whole).
 */
int tap_map_counter_add(struct tap_context *c, struct tap_map *m, const union tap_key *k,
			int64_t delta)
{
	unsigned int cpu = smp_processor_id();
	atomic_t *l = tap_cpu_lock_of(&m->locks, cpu);
	int held = tap_cpu_trylock(c, l);
	struct tap_map *pm = m->delta[cpu];
	struct tap_mnode *n;
	int64_t *p;
	int r = -1, left;
	u32 hash, i;

	if (held < 0)
		return -1;
	if (held == 2) {
		r = tap_map_add_long(c, m, k, delta, NULL);
		goto out;
	}
	hash = tap_key_hash(pm, k);
	i = tap_map_find(pm, k, hash);
	if (i) {
		n = TAP_NODE(pm, i);
	} else {
		int64_t seq = 0;

		if (!tap_map_find(m, k, hash)) {
			for (;;) {
				left = atomic_read(&m->pending);
				if (m->count + (u32)left >= m->max_entries) {
					r = tap_map_counter_add_whole(c, m, k, delta,
								      held ? TAP_CPU_OWNER(cpu) : 1);
					goto out;
				}
				if (atomic_cmpxchg(&m->pending, left, left + 1) == left)
					break;
			}
			seq = left + 1;
		}
		n = tap_map_insert(c, pm, k, hash);
		if (!n)
			goto out;
		*tap_delta_seq(pm, n) = seq;
	}
	p = (int64_t *)tap_node_field(pm, n, pm->val_off);
	*p = tap_add(*p, delta);
	r = 0;
out:
	if (!held)
		tap_cpu_release(l);
	return r;
}

int64_t tap_map_size(struct tap_context *c, struct tap_map *m)
{
	if (m->cpu && tap_map_aggregate(c, m))
		return 0;
	return m->count;
}

/* ---- sorted iteration ---- */

struct tap_sort_key {
	const struct tap_map *m;
	int col, dir, agg_op;
};

static int64_t tap_stat_sort_value(const struct tap_stat_data *d, int op)
{
	switch (op) {
	case TAP_STAT_SUM:
		return d->sum;
	case TAP_STAT_MIN:
		return d->count ? d->min : 0;
	case TAP_STAT_MAX:
		return d->count ? d->max : 0;
	case TAP_STAT_AVG:
		return d->count ? div64_s64(d->sum, d->count) : 0;
	default:
		return d->count;
	}
}

static int tap_cmp_field(const struct tap_map *m, int type, const struct tap_mnode *a,
			 const struct tap_mnode *b, size_t off, int agg_op)
{
	const char *fa = tap_node_field(m, a, off), *fb = tap_node_field(m, b, off);
	int64_t va, vb;

	if (type == TAP_STRING)
		return strcmp(fa, fb);
	if (type == TAP_LONG) {
		va = *(const int64_t *)fa;
		vb = *(const int64_t *)fb;
	} else {
		va = tap_stat_sort_value((const struct tap_stat_data *)fa, agg_op);
		vb = tap_stat_sort_value((const struct tap_stat_data *)fb, agg_op);
	}
	return va < vb ? -1 : va > vb;
}

/* The requested column in the requested direction, then ties by the keys. */
static int tap_cmp_nodes(const struct tap_sort_key *sk, u64 x, u64 y)
{
	const struct tap_map *m = sk->m;
	const struct tap_mnode *a = TAP_NODE(m, (u32)x), *b = TAP_NODE(m, (u32)y);
	int r, i;

	if (sk->col == 0)
		r = tap_cmp_field(m, m->val_type, a, b, m->val_off, sk->agg_op);
	else
		r = tap_cmp_field(m, m->key_types[sk->col - 1], a, b,
				  m->key_off[sk->col - 1], sk->agg_op);
	if (r)
		return sk->dir < 0 ? -r : r;
	for (i = 0; i < m->nkeys; i++) {
		r = tap_cmp_field(m, m->key_types[i], a, b, m->key_off[i], 0);
		if (r)
			return r;
	}
	return 0;
}

/* Heapsort: no recursion, no extra memory, O(n log n) worst case. */
static void tap_sift_down(const struct tap_sort_key *sk, u64 *v, u32 root, u32 n)
{
	u32 child;
	u64 tmp;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && tap_cmp_nodes(sk, v[child], v[child + 1]) < 0)
			child++;
		if (tap_cmp_nodes(sk, v[root], v[child]) >= 0)
			return;
		tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

static void tap_sort_entries(const struct tap_sort_key *sk, u64 *v, u32 n)
{
	u32 i;
	u64 tmp;

	for (i = n / 2; i-- > 0;)
		tap_sift_down(sk, v, i, n);
	for (i = n; i-- > 1;) {
		tmp = v[0];
		v[0] = v[i];
		v[i] = tmp;
		tap_sift_down(sk, v, 0, i);
	}
}

/*
 * The iterator snapshots (generation, index) of the matching elements
 * into the context's scratch stack, sorted if asked; deleting elements
 * while iterating is safe because a freed (or reused) node has a new
 * generation and is skipped.
 */
int tap_map_iter_begin(struct tap_context *c, struct tap_iter *it, struct tap_map *m,
		       const union tap_key *k, unsigned int wild, int sort_col, int dir,
		       int agg_op, int64_t limit)
{
	struct tap_sort_key sk = { .m = m, .col = sort_col, .dir = dir, .agg_op = agg_op };
	u32 i, n = 0;

	it->m = m;
	it->n = it->pos = 0;
	it->cur = NULL;
	it->left = limit;
	it->v = c->iter_scratch + c->iter_scratch_used;
	if (tap_map_aggregate(c, m))
		return -1;
	if (m->count > c->iter_scratch_size - c->iter_scratch_used) {
		tap_error(c, "too many nested foreach loops over large arrays");
		return -1;
	}
	for (i = m->head; i; i = TAP_NODE(m, i)->next)
		if (!k || tap_key_match(m, TAP_NODE(m, i), k, wild))
			it->v[n++] = (u64)TAP_NODE(m, i)->gen << 32 | i;
	it->n = n;
	c->iter_scratch_used += n;
	if (dir && sort_col >= 0 && sort_col <= m->nkeys)
		tap_sort_entries(&sk, it->v, n);
	return 0;
}

bool tap_map_iter_next(struct tap_iter *it)
{
	while (it->pos < it->n) {
		u64 e = it->v[it->pos++];
		struct tap_mnode *n = TAP_NODE(it->m, (u32)e);

		if (!n->live || n->gen != (u32)(e >> 32))
			continue;
		if (it->left == 0)
			break;
		if (it->left > 0)
			it->left--;
		it->cur = n;
		return true;
	}
	it->pos = it->n;
	it->cur = NULL;
	return false;
}

void tap_map_iter_end(struct tap_context *c, struct tap_iter *it)
{
	u32 base = it->v - c->iter_scratch;

	if (base <= c->iter_scratch_used)
		c->iter_scratch_used = base;
	it->n = it->pos = 0;
}
