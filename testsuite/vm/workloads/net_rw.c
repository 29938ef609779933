/* net_rw: one round trip through each kind of socket, for the socket, tcp
 * and udp probes: an AF_UNIX stream pair (send 5 bytes and recv them, then
 * write 3 bytes and read them), a UDP socket on 127.0.0.1 that sends 8
 * bytes to itself, and a TCP connection on 127.0.0.1 that carries 4 bytes
 * (receive buffers of 64 bytes).  It brings the loopback device up first
 * (the test VM's is down at boot). */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static int loopback(struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

int main(void)
{
	char buf[64];
	int sv[2], s, l, c, x;
	struct ifreq ifr;
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return fail("net_rw: socketpair");
	if (send(sv[0], "hello", 5, 0) != 5 || recv(sv[1], buf, sizeof(buf), 0) != 5)
		return fail("net_rw: unix send/recv");
	if (write(sv[0], "abc", 3) != 3 || read(sv[1], buf, sizeof(buf)) != 3)
		return fail("net_rw: unix write/read");
	close(sv[0]);
	close(sv[1]);

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return fail("net_rw: udp socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return fail("net_rw: SIOCGIFFLAGS lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return fail("net_rw: SIOCSIFFLAGS lo");
	loopback(&a);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return fail("net_rw: udp bind");
	if (sendto(s, "datagram", 8, 0, (struct sockaddr *)&a, len) != 8 ||
	    recv(s, buf, sizeof(buf), 0) != 8)
		return fail("net_rw: udp sendto/recv");
	close(s);

	l = socket(AF_INET, SOCK_STREAM, 0);
	loopback(&a);
	len = sizeof(a);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return fail("net_rw: tcp listen");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, len) < 0)
		return fail("net_rw: tcp connect");
	x = accept(l, NULL, NULL);
	if (x < 0)
		return fail("net_rw: tcp accept");
	if (send(c, "ping", 4, 0) != 4 || recv(x, buf, sizeof(buf), 0) != 4)
		return fail("net_rw: tcp send/recv");
	close(c);
	close(x);
	close(l);
	return 0;
}
