/* transport.h - the wire format between a tapc module and taprun, and the
 * kernel-side transport API.
 *
 * This header is included by the module (kernel) and by taprun (user
 * space).  Everything outside "#ifdef __KERNEL__" is the wire format: only
 * fixed-width fields, little surprises for a 32-bit reader, and a version
 * that both sides check.  A change of layout bumps TAP_TRANSPORT_VERSION.
 *
 * Files, in /sys/kernel/debug/tapc_<module>/ or /proc/tapc_<module>/:
 *
 *   traceN  one per possible CPU N: a byte stream of records, each a
 *           struct tap_rec_hdr and then hdr.len bytes of script output.
 *           Records never straddle a read boundary in the kernel, but a
 *           reader may get part of one and must keep the rest for later.
 *           seq is a global sequence number: the first record of a run has
 *           seq 1, every written record the next one (a dropped record gets
 *           none, so there are no holes), and the numbers wrap at 2^32.
 *           Within one file seq only grows (modulo the wrap).
 *   ctl     the control channel.  A write() is exactly one message from
 *           taprun; a read() returns one or more whole messages from the
 *           module (the buffer must hold TAP_MSG_MAX bytes).  Every message
 *           starts with struct tap_msg_hdr; size counts the header.  A
 *           reader skips types it does not know; a message longer than the
 *           struct a side knows carries newer fields at its end.
 *
 * The session, as taprun sees it:
 *   read HELLO -> write START -> read STARTED -> ... (output; ERROR,
 *   WARNING, SYSTEM messages; maybe EXIT) ... -> write STOP -> read DONE
 *   -> drain the trace files -> close everything -> delete_module().
 */
#ifndef TAP_TRANSPORT_H
#define TAP_TRANSPORT_H

#include <linux/types.h>

#define TAP_TRANSPORT_VERSION 1

/* Directory names are "tapc_" + the module name. */
#define TAP_DIR_PREFIX "tapc_"

/* ---- trace files ---- */

struct tap_rec_hdr {
	__u32 len;	/* payload bytes that follow the header */
	__u32 seq;	/* global program order, see above */
};

/* ---- control messages ---- */

struct tap_msg_hdr {
	__u32 size;	/* whole message, header included */
	__u32 type;	/* enum tap_msg_type */
};

enum tap_msg_type {
	/* taprun -> module */
	TAP_MSG_START = 1,	/* struct tap_msg_start: run begin probes */
	TAP_MSG_STOP = 2,	/* header only: run end probes, then DONE */

	/* module -> taprun */
	TAP_MSG_HELLO = 16,	/* struct tap_msg_hello: first message read */
	TAP_MSG_STARTED = 17,	/* struct tap_msg_status: begin probes ran */
	TAP_MSG_ERROR = 18,	/* text: one error, print "ERROR: text" */
	TAP_MSG_WARNING = 19,	/* text: print "WARNING: text" */
	TAP_MSG_EXIT = 20,	/* header only: the script asked to end */
	TAP_MSG_DONE = 21,	/* struct tap_msg_done: end probes ran */
	TAP_MSG_SYSTEM = 22,	/* text: run it with /bin/sh -c */
};

/* Longest message in either direction, header included.  Text messages
 * are truncated to fit. */
#define TAP_MSG_MAX 2048
#define TAP_MSG_TEXT_MAX (TAP_MSG_MAX - (int)sizeof(struct tap_msg_hdr))

/* How the trace files are fed (tap_msg_hello.mode). */
enum tap_trace_mode {
	TAP_TRACE_RELAY = 1,	/* relay channels (debugfs) */
	TAP_TRACE_RING = 2,	/* the transport's own per-CPU rings */
};

struct tap_msg_hello {
	struct tap_msg_hdr hdr;
	__u32 version;		/* TAP_TRANSPORT_VERSION of the module */
	__u32 mode;		/* enum tap_trace_mode */
	__u32 nr_trace;		/* trace0 .. trace<nr_trace-1>; CPUs that
				   are not possible have no file */
	__u32 max_record;	/* longest payload of one record */
	__u64 buf_size;		/* bytes of trace buffer per CPU */
};

/* START flags. */
#define TAP_START_F_SUPPRESS_WARNINGS	0x1	/* -w: do not send warnings */

struct tap_msg_start {
	struct tap_msg_hdr hdr;
	__u32 version;		/* TAP_TRANSPORT_VERSION of taprun */
	__u32 flags;		/* TAP_START_F_* */
	__s32 target_pid;	/* -x PID or the -c command; 0 if none */
	__s32 remote_id;	/* --remote index, -1 if none */
	__s64 tz_gmtoff;	/* seconds west of UTC */
	char tz_name[16];	/* NUL-terminated */
	char remote_uri[128];	/* NUL-terminated, "" if none */
};

struct tap_msg_status {
	struct tap_msg_hdr hdr;
	__s32 status;		/* 0 or a negative errno */
	__u32 pad;
};

/* Why a probe hit was skipped (tap_msg_done.skipped[]). */
enum tap_skip_reason {
	TAP_SKIP_REENTRANT,	/* a probe fired inside a probe on that CPU */
	TAP_SKIP_LOCK,		/* a global's lock timed out */
	TAP_SKIP_STATE,		/* hit while starting or stopping */
	TAP_SKIP_KRETPROBE,	/* kretprobe instances ran out */
	TAP_SKIP_UPROBE,	/* uprobe/uretprobe instances ran out */
	TAP_SKIP_OTHER,
	TAP_SKIP_NR,
	TAP_SKIP_SLOTS = 8	/* room in the message; TAP_SKIP_NR <= this */
};

struct tap_msg_done {
	struct tap_msg_hdr hdr;
	__u32 nr_skip;		/* entries of skipped[] in use */
	__u32 pad;
	__u64 errors;		/* script errors, printed or suppressed */
	__u64 warnings;
	__u64 records;		/* trace records written */
	__u64 bytes;		/* payload bytes written */
	__u64 records_dropped;	/* prints lost: trace buffer full */
	__u64 msgs_dropped;	/* control messages lost: queue full */
	__u64 skipped[TAP_SKIP_SLOTS];
};

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/uidgid.h>

/* ---- the kernel-side API (runtime/transport.c) ----
 *
 * Load and unload (process context):
 *   int  tap_transport_init(const char *modname);
 *   void tap_transport_exit(void);
 * init creates the directory and files; exit removes them, after the
 * module has unregistered its probes.
 *
 * Hooks the generated module implements (called from a kernel worker in
 * process context, one at a time, in this order):
 *   int  tap_on_start(void);   register probes and run begin probes;
 *                              0 or -errno (then the run ends)
 *   void tap_on_stop(void);    run end probes, unregister probes and wait
 *                              for running handlers; after it returns no
 *                              probe may print
 * tap_on_stop() also runs when taprun goes away without STOP.
 *
 * Output, in any context but NMI, preemption disabled:
 *   char *tap_reserve(size_t len);
 *       Room for len bytes at the end of this CPU's print buffer (one
 *       buffer per CPU and interrupt level).  If the buffer has no room it
 *       is committed first.  NULL if len > TAP_PRINT_BUFSIZE or in NMI.
 *   void tap_unreserve(size_t len);
 *       Give back the last len reserved bytes (reserve the most a format
 *       can take, then return what it did not use).
 *   void tap_commit(void);
 *       Send the print buffer as one record.  Probe handlers call it on
 *       the way out, so one handler's output stays together.
 *   void tap_write(const char *buf, size_t len);   reserve + copy
 *   void tap_print(const char *s);                 tap_write of a string
 * A record that does not fit in the trace buffer is dropped and counted;
 * taprun reports the count.  Output of tap_on_start()/tap_on_stop() is
 * instead held back (up to 32 MiB) until taprun has read enough.
 *
 * Control, in any context but NMI:
 *   void tap_msg_error(const char *text);    ERROR text (not counted)
 *   void tap_msg_warning(const char *text);  WARNING text (not counted)
 *   void tap_warn(const char *fmt, ...);     count + format + WARNING
 *   int  tap_system(const char *cmd);        0, or -E2BIG: queue full
 *   void tap_exit(void);                     end the run: no handler but
 *                                            end probes starts any more
 *   void tap_count_error(void);
 *   void tap_count_skip(enum tap_skip_reason why);
 *   int  tap_session_state(void);            enum tap_session_state
 *
 * Values from START, valid from tap_on_start() on:
 *   tap_target_pid, tap_loader_pid, tap_loader_uid, tap_remote_id,
 *   tap_remote_uri, tap_tz_gmtoff, tap_tz_name (see TAPSET-API.md).
 */

/* Longest payload of one record, i.e. of the per-CPU print buffer. */
#ifndef TAP_PRINT_BUFSIZE
#define TAP_PRINT_BUFSIZE 8192
#endif

enum tap_session_state {
	TAP_STATE_LOADED,	/* module loaded, START not yet received */
	TAP_STATE_STARTING,	/* begin probes run */
	TAP_STATE_RUNNING,	/* normal probes run */
	TAP_STATE_STOPPING,	/* exit() or STOP: only end probes run */
	TAP_STATE_STOPPED,	/* end probes ran */
};

int tap_transport_init(const char *modname);
void tap_transport_exit(void);

/* Implemented by the generated module. */
int tap_on_start(void);
void tap_on_stop(void);

char *tap_reserve(size_t len);
void tap_unreserve(size_t len);
void tap_commit(void);
void tap_write(const char *buf, size_t len);
void tap_print(const char *s);

void tap_msg_error(const char *text);
void tap_msg_warning(const char *text);
void tap_warn(const char *fmt, ...) __printf(1, 2);
int tap_system(const char *cmd);
void tap_exit(void);
void tap_count_error(void);
void tap_count_skip(enum tap_skip_reason why);
int tap_session_state(void);

extern pid_t tap_target_pid;
extern pid_t tap_loader_pid;
extern kuid_t tap_loader_uid;
extern int tap_remote_id;
extern long tap_tz_gmtoff;
extern const char *tap_remote_uri;
extern const char *tap_tz_name;

#endif /* __KERNEL__ */

#endif /* TAP_TRANSPORT_H */
