/* kitprog.d - the markers of the probes/ kit's test program (kitprog.c),
 * for dtrace -h and -G. */
struct request;                 /* declarations besides providers are skipped */

provider kitprog {
	/* one request: its id, status and path */
	probe request(long id, int status, const char *path);
	/* fires only while probed: its argument is built just for it */
	probe guarded(int n, const char *text);
	/* integers of every size and sign, and a global in memory */
	probe sizes(int level, short s, unsigned char uc, signed char sc,
		    long long big, unsigned int u);
	probe done();
};
