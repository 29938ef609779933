/* sdt_bench.d - the markers of bench/sdt's program (sdt_bench.c). */
provider sdt_bench {
	probe nop(long i);              /* never guarded */
	probe hit(long i, long sum);    /* guarded by its semaphore */
};
