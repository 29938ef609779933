/* transport.h - the kernel-side transport API, and how the module and
 * taprun use the files.  The wire format itself (records and messages,
 * shared with taprun) is include/tap_wire.h.
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
 *           Within one file seq only grows (modulo the wrap).  A record
 *           whose len has a TAP_REC_F_* flag is a mark (tap_wire.h), not
 *           output.
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

/* Relative to this folder, as include/ sits beside runtime/ in the
 * source tree and in an installed tapc (PKGDATADIR/include). */
#include "../include/tap_wire.h"

#ifndef TAP_USER_TEST
#include <linux/compiler.h>
#include <linux/uidgid.h>
#endif

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
 *   void tap_switch_file(void);
 *       Commit the print buffer, then put a TAP_REC_F_SWITCH mark in the
 *       stream: taprun -S starts the next output file there.
 * A record that does not fit in the trace buffer is dropped and counted;
 * taprun reports the count.  Output of tap_on_start()/tap_on_stop() is
 * instead held back (up to 32 MiB) until taprun has read enough.
 *
 * Control, in any context but NMI:
 *   void tap_msg_error(const char *text);    ERROR text (not counted)
 *   void tap_msg_warning(const char *text);  WARNING text (not counted)
 * These three commit the print buffer, then put the text in the output
 * stream as a TAP_REC_F_ERROR/WARNING mark, so it reaches the user after
 * the output printed before it (a control message if it does not fit).
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
void tap_switch_file(void);

void tap_msg_error(const char *text);
void tap_msg_warning(const char *text);
void tap_warn(const char *fmt, ...) __printf(1, 2);
int tap_system(const char *cmd);
void tap_exit(void);
void tap_count_error(void);
void tap_count_skip(enum tap_skip_reason why);

/*
 * Whether this CPU's handler printed since its last commit, read at every
 * handler's exit (tap_context_exit() commits only then): the first member
 * of this CPU's struct tap_cpu (transport.c).  NULL until they exist.
 */
struct tap_cpu;
extern struct tap_cpu **tap_cpus;
static inline bool tap_output_pending(void)
{
	struct tap_cpu **cpus = READ_ONCE(tap_cpus);

	return cpus && *(const unsigned int *)cpus[smp_processor_id()];
}

/* The session's state, read at every probe hit: inline. */
extern atomic_t tap_state;
static inline int tap_session_state(void)
{
	return atomic_read(&tap_state);
}

extern pid_t tap_target_pid;
extern pid_t tap_loader_pid;
extern kuid_t tap_loader_uid;
extern int tap_remote_id;
extern long tap_tz_gmtoff;
extern const char *tap_remote_uri;
extern const char *tap_tz_name;

#endif /* TAP_TRANSPORT_H */
