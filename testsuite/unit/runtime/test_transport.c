/*
 * test_transport.c - the module side of the transport (runtime/transport.c,
 * transport_ring.c) in user space, through runtime/tap_shim_user.h and
 * runtime/tap_shim_transport.h: every allocation and every kernel object
 * of the setup fails in turn, and each unwind must leave nothing behind;
 * a whole session (HELLO, START, output, STOP, DONE) in ring mode; and
 * end-probe output that waits in memory while an allocation for it fails.
 */
#define TAP_USER_TEST 1
#include "alloc.c"
#include "transport.c"

int tap_test_cpu;
int tap_test_ncpus = 4;
int tap_test_kernel_log;
void (*tap_test_sleep_hook)(void);
struct task_struct tap_test_task = { 4242 };
struct tap_test_entry tap_test_entries[TAP_TEST_MAX_ENTRIES];
bool tap_test_locked_down;
const struct file_operations relay_file_operations;

static int failures, checks;

#define CHECK(cond) check(__LINE__, #cond, (cond))
#define CHECK_INT(got, want) check_int(__LINE__, #got, (long long)(got), (long long)(want))

static void check(int line, const char *what, bool ok)
{
	checks++;
	if (!ok) {
		failures++;
		printf("FAIL line %d: %s\n", line, what);
	}
}

static void check_int(int line, const char *what, long long got, long long want)
{
	checks++;
	if (got != want) {
		failures++;
		printf("FAIL line %d: %s: got %lld, want %lld\n", line, what, got, want);
	}
}

/* ---- the "generated module": begin and end probes ---- */

static int start_ret;
static int stop_records;		/* records the end probe prints */
static size_t stop_len = 100;		/* bytes each */

static void print_record(const char *text, size_t len, char fill)
{
	char *p = tap_reserve(len);

	if (!p)
		return;
	if (text)
		memcpy(p, text, len);
	else
		memset(p, fill, len);
	tap_commit();
}

int tap_on_start(void)
{
	print_record("begin\n", 6, 0);
	return start_ret;
}

void tap_on_stop(void)
{
	int i;

	for (i = 0; i < stop_records; i++)
		print_record(NULL, stop_len, 'a' + i % 26);
	print_record("end\n", 4, 0);
}

/* ---- files, as taprun sees them ---- */

static struct tap_test_entry *find(const char *name)
{
	int i;

	for (i = 0; i < TAP_TEST_MAX_ENTRIES; i++)
		if (tap_test_entries[i].used && !strcmp(tap_test_entries[i].name, name))
			return &tap_test_entries[i];
	return NULL;
}

static int entries_used(void)
{
	int i, n = 0;

	for (i = 0; i < TAP_TEST_MAX_ENTRIES; i++)
		n += tap_test_entries[i].used;
	return n;
}

struct tfile {
	struct tap_test_entry *e;
	struct inode inode;
	struct file file;
};

static int topen(struct tfile *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	f->e = find(name);
	if (!f->e)
		return -ENOENT;
	f->inode.i_private = f->e->data;
	f->file.f_flags = O_NONBLOCK;
	return f->e->proc ? f->e->pops->proc_open(&f->inode, &f->file)
			  : f->e->fops->open(&f->inode, &f->file);
}

static ssize_t tread(struct tfile *f, void *buf, size_t n)
{
	loff_t pos = 0;

	return f->e->proc ? f->e->pops->proc_read(&f->file, buf, n, &pos)
			  : f->e->fops->read(&f->file, buf, n, &pos);
}

static ssize_t twrite(struct tfile *f, const void *buf, size_t n)
{
	loff_t pos = 0;

	return f->e->proc ? f->e->pops->proc_write(&f->file, buf, n, &pos)
			  : f->e->fops->write(&f->file, buf, n, &pos);
}

static void tclose(struct tfile *f)
{
	if (!f->e)
		return;
	if (f->e->proc) {
		if (f->e->pops->proc_release)
			f->e->pops->proc_release(&f->inode, &f->file);
	} else if (f->e->fops->release) {
		f->e->fops->release(&f->inode, &f->file);
	}
	f->e = NULL;
}

/* ---- every failure of the setup, in turn ---- */

/* Fail the n-th allocation or object of tap_transport_init() for n = 0,
 * 1, ... until one init needs no failure; each failed init must return
 * -ENOMEM and leave no allocation and no file behind.  Returns the number
 * of failure points; *fallbacks counts failures init got around (auto:
 * no debugfs, so procfs). */
static int walk_setup(const char *transport, int *fallbacks)
{
	long n;
	int points = 0;

	*fallbacks = 0;
	tap_param_transport = (char *)transport;
	for (n = 0; n < 10000; n++) {
		long live = tap_test_alloc_live;
		bool injected;
		int ret;

		tap_test_alloc_countdown = n;
		ret = tap_transport_init("walk");
		injected = tap_test_alloc_countdown < 0;
		tap_test_alloc_countdown = -1;
		if (ret == 0) {
			CHECK(entries_used() > 0);
			tap_transport_exit();
			CHECK_INT(tap_test_alloc_live, live);
			CHECK_INT(entries_used(), 0);
			if (!injected)
				return points;	/* every point walked */
			(*fallbacks)++;
			continue;
		}
		points++;
		check_int(__LINE__, transport, ret, -ENOMEM);
		check_int(__LINE__, transport, tap_test_alloc_live, live);
		check_int(__LINE__, transport, entries_used(), 0);
		CHECK(tap_tp.counters == NULL && tap_tp.cpu == NULL &&
		      tap_tp.relay == NULL);
	}
	CHECK(!"the setup never succeeded");
	return points;
}

static void test_setup_failures(void)
{
	int fallbacks, points;

	/* per CPU: its struct, its ctl ring and (ring mode) its trace ring;
	 * then counters, workqueue, folder, CPU table, ctl and trace files */
	points = walk_setup("ring", &fallbacks);
	CHECK_INT(points, 4 + 3 * 4 + 1 + 4);
	CHECK_INT(fallbacks, 0);
	points = walk_setup("procfs", &fallbacks);
	CHECK_INT(points, 4 + 3 * 4 + 1 + 4);
	CHECK_INT(fallbacks, 0);
	/* relay: no trace rings, but the channel and its per-CPU table */
	points = walk_setup("relay", &fallbacks);
	CHECK_INT(points, 4 + 2 * 4 + 2 + 1);
	CHECK_INT(fallbacks, 0);
	/* auto: debugfs failing is not an error, procfs takes over */
	points = walk_setup("auto", &fallbacks);
	CHECK_INT(points, 3 + 3 * 4 + 1 + 4);
	CHECK_INT(fallbacks, 1);
	/* auto under lockdown: procfs from the start, no debugfs folder
	 * tried (and so no fallback point); a forced ring keeps debugfs */
	tap_test_locked_down = true;
	points = walk_setup("auto", &fallbacks);
	CHECK_INT(points, 4 + 3 * 4 + 1 + 4);
	CHECK_INT(fallbacks, 0);
	CHECK_INT(tap_tp.use_procfs, 1);
	points = walk_setup("ring", &fallbacks);
	CHECK_INT(points, 4 + 3 * 4 + 1 + 4);
	CHECK_INT(tap_tp.use_procfs, 0);
	tap_test_locked_down = false;
	/* a bad transport name fails before any allocation */
	tap_param_transport = "carrier-pigeon";
	CHECK_INT(tap_transport_init("walk"), -EINVAL);
	CHECK_INT(tap_test_alloc_live, 0);
	tap_param_transport = "auto";
	CHECK_INT(tap_test_kernel_log > 0, 1);
}

/* ---- a whole session ---- */

/* The records of one trace file, "seq:payload;" each, appended to out. */
static int read_records(const char *name, char *out, size_t size,
			unsigned int *next_seq)
{
	static char buf[1 << 20];
	struct tfile f;
	ssize_t n;
	size_t off = 0;
	int recs = 0;

	if (topen(&f, name))
		return -1;
	n = tread(&f, buf, sizeof(buf));
	tclose(&f);
	while (n > 0 && off + sizeof(struct tap_rec_hdr) <= (size_t)n) {
		struct tap_rec_hdr h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (next_seq) {
			check_int(__LINE__, "record sequence", h.seq, *next_seq);
			*next_seq = h.seq + 1;
		}
		if (out) {
			size_t len = strlen(out);
			uint32_t flag = h.len & TAP_REC_F_MASK;

			/* a mark shows as S:, E: or W: before its text */
			snprintf(out + len, size - len, "%u:%s%.*s;", h.seq,
				 flag == TAP_REC_F_SWITCH ? "S:" :
				 flag == TAP_REC_F_ERROR ? "E:" :
				 flag == TAP_REC_F_WARNING ? "W:" : "",
				 (int)(h.len & TAP_REC_LEN_MASK), buf + off);
		}
		off += h.len & TAP_REC_LEN_MASK;
		recs++;
	}
	return recs;
}

/* One control message of the given type from what ctl has. */
static bool read_msg(struct tfile *ctl, unsigned int type, void *msg,
		     size_t size)
{
	static char buf[4 * TAP_MSG_MAX];
	ssize_t n = tread(ctl, buf, sizeof(buf));
	size_t off = 0;

	while (n > 0 && off + sizeof(struct tap_msg_hdr) <= (size_t)n) {
		struct tap_msg_hdr h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.type == type) {
			memcpy(msg, buf + off, min(size, (size_t)h.size));
			return true;
		}
		off += h.size;
	}
	return false;
}

static void test_session(void)
{
	struct tap_msg_start start = {
		.hdr = { sizeof(start), TAP_MSG_START },
		.version = TAP_TRANSPORT_VERSION,
		.target_pid = 77,
		.remote_id = -1,
		.tz_name = "UTC",
	};
	struct tap_msg_hdr stop = { sizeof(stop), TAP_MSG_STOP };
	struct tap_msg_hello hello;
	struct tap_msg_status st;
	struct tap_msg_done done;
	struct tfile ctl, other;
	char text[256] = "";
	long live = tap_test_alloc_live;

	tap_param_transport = "ring";
	stop_records = 0;
	start_ret = 0;
	CHECK_INT(tap_transport_init("sess"), 0);
	CHECK(find("tapc_sess") && find("trace3") && !find("trace4"));
	CHECK_INT(topen(&ctl, "ctl"), 0);
	CHECK_INT(topen(&other, "ctl"), -EBUSY);	/* one taprun at a time */
	CHECK(read_msg(&ctl, TAP_MSG_HELLO, &hello, sizeof(hello)));
	CHECK_INT(hello.nr_trace, 4);
	CHECK_INT(hello.mode, TAP_TRACE_RING);
	CHECK_INT(hello.max_record, TAP_PRINT_BUFSIZE);
	CHECK_INT(twrite(&ctl, &start, sizeof(start)), sizeof(start));
	CHECK_INT(tap_target_pid, 77);
	CHECK_INT(tap_loader_pid, 4242);
	CHECK(read_msg(&ctl, TAP_MSG_STARTED, &st, sizeof(st)));
	CHECK_INT(st.status, 0);
	CHECK_INT(tap_session_state(), TAP_STATE_RUNNING);

	/* a probe on CPU 2: an error after its committed output; then
	 * output not committed yet and a warning, which commits it first
	 * (errors and warnings are marks in the output's order) */
	tap_test_cpu = 2;
	print_record("probe\n", 6, 0);
	tap_msg_error("oops");
	memcpy(tap_reserve(4), "half", 4);
	tap_warn("careful %d", 7);
	tap_test_cpu = 0;
	CHECK_INT(read_records("trace0", text, sizeof(text), NULL), 1);
	CHECK_INT(read_records("trace2", text, sizeof(text), NULL), 4);
	check(__LINE__, text, !strcmp(text, "1:begin\n;2:probe\n;3:E:oops;"
					    "4:half;5:W:careful 7;"));

	CHECK_INT(twrite(&ctl, &stop, sizeof(stop)), sizeof(stop));
	CHECK_INT(tap_session_state(), TAP_STATE_STOPPED);
	CHECK(read_msg(&ctl, TAP_MSG_DONE, &done, sizeof(done)));
	CHECK_INT(done.records, 4);	/* marks are not output */
	CHECK_INT(done.bytes, 6 + 6 + 4 + 4);
	CHECK_INT(done.records_dropped, 0);
	CHECK_INT(done.warnings, 1);
	text[0] = '\0';
	CHECK_INT(read_records("trace0", text, sizeof(text), NULL), 1);
	check(__LINE__, text, !strcmp(text, "6:end\n;"));
	tclose(&ctl);
	tap_transport_exit();
	CHECK_INT(tap_test_alloc_live, live);
	CHECK_INT(entries_used(), 0);
}

/* ---- end-probe output that waits in memory ---- */

static unsigned int drain_seq;
static int drained;

/* While the worker waits for room, "taprun" reads. */
static void drain_all(void)
{
	char name[16];
	int cpu;

	for (cpu = 0; cpu < tap_test_ncpus; cpu++) {
		snprintf(name, sizeof(name), "trace%d", cpu);
		drained += read_records(name, NULL, 0, &drain_seq);
	}
}

/* The end probe prints 20 records of 8000 bytes into a 64 KiB ring: most
 * wait in memory (tap_alloc_atomic) and go out as taprun reads.  Failing
 * the n-th of those allocations loses that record only, counted; the
 * rest arrive in order, and nothing leaks. */
static void test_overflow(void)
{
	struct tap_msg_start start = {
		.hdr = { sizeof(start), TAP_MSG_START },
		.version = TAP_TRANSPORT_VERSION,
	};
	struct tap_msg_hdr stop = { sizeof(stop), TAP_MSG_STOP };
	struct tap_msg_done done;
	long n, live = tap_test_alloc_live;
	int points = 0;

	tap_param_transport = "ring";
	tap_param_bufsize_kb = 1;	/* the least: 4 records, 64 KiB ring */
	stop_records = 20;
	stop_len = 8000;
	for (n = -1; n < 40; n++) {
		struct tfile ctl;
		bool injected;

		CHECK_INT(tap_transport_init("ovf"), 0);
		CHECK_INT(topen(&ctl, "ctl"), 0);
		CHECK_INT(twrite(&ctl, &start, sizeof(start)), sizeof(start));
		drain_seq = 1;
		drained = 0;
		drain_all();			/* begin */
		tap_test_sleep_hook = drain_all;
		tap_test_alloc_countdown = n;
		CHECK_INT(twrite(&ctl, &stop, sizeof(stop)), sizeof(stop));
		injected = tap_test_alloc_countdown < 0 && n >= 0;
		tap_test_alloc_countdown = -1;
		tap_test_sleep_hook = NULL;
		drain_all();
		CHECK(read_msg(&ctl, TAP_MSG_DONE, &done, sizeof(done)));
		CHECK_INT(done.records_dropped, injected ? 1 : 0);
		CHECK_INT(drained, 1 + 20 + 1 - (injected ? 1 : 0));
		CHECK_INT(done.records, drained);
		tclose(&ctl);
		tap_transport_exit();
		CHECK_INT(tap_test_alloc_live, live);
		if (n >= 0 && !injected)
			break;
		points += injected;
	}
	/* 20 records and "end" of 8008 bytes each with their headers, 8 of
	 * which fit in the ring at first: 13 waited in memory */
	CHECK_INT(points, 13);
	tap_param_bufsize_kb = 0;
	stop_records = 0;
}

int main(void)
{
	test_setup_failures();
	test_session();
	test_overflow();
	CHECK_INT(tap_test_alloc_live, 0);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
