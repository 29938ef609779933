/* nol.c - libnol.so, built without -g: no line table (lines.stp). */
int nol(int x)
{
	return x + 1;
}
