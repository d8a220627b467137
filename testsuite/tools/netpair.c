/* netpair - a TCP and a UDP exchange over 127.0.0.1 for the tests of
 * the socket.*, tcp.* and udp.* aliases, with the values they should see
 * printed as "guest KEY VALUE" lines:
 *   TCP: listen on 127.0.0.1:5557, connect, setsockopt(TCP_NODELAY),
 *        send(2) "hello" (5 bytes), accept, recv(2) it, then write(2)
 *        "abc" and read(2) it, writev(2) "de" "f" and readv(2) it,
 *        connect(AF_UNSPEC) (tcp_disconnect), close
 *   UDP: bind 127.0.0.1:5556, connect a client to it, send(2) "ping"
 *        (4 bytes), recv(2) it, connect(AF_UNSPEC) (udp_disconnect), close
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int local_port(int fd)
{
	struct sockaddr_in a;
	socklen_t n = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &n))
		die("getsockname");
	return ntohs(a.sin_port);
}

static void unconnect(int fd)
{
	struct sockaddr sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_family = AF_UNSPEC;
	if (connect(fd, &sa, sizeof(sa)))
		die("connect AF_UNSPEC");
}

int main(void)
{
	struct sockaddr_in srv = loopback(5557), usrv = loopback(5556);
	int one = 1, l, c, s, us, uc;
	char buf[64];
	ssize_t n;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("socket");
	if (bind(l, (struct sockaddr *)&srv, sizeof(srv)) || listen(l, 1))
		die("bind");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&srv, sizeof(srv)))
		die("connect");
	printf("guest tcp_client_port %d\n", local_port(c));
	if (setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("setsockopt");
	if (send(c, "hello", 5, 0) != 5)
		die("send");
	s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	n = recv(s, buf, sizeof(buf), 0);
	printf("guest tcp_received %zd\n", n);
	if (write(c, "abc", 3) != 3 || read(s, buf, sizeof(buf)) != 3)
		die("write/read");
	{
		struct iovec out[2] = { { "de", 2 }, { "f", 1 } };
		struct iovec in[2] = { { buf, 1 }, { buf + 1, sizeof(buf) - 1 } };

		if (writev(c, out, 2) != 3 || readv(s, in, 2) != 3)
			die("writev/readv");
	}
	unconnect(c);
	close(c);
	close(s);
	close(l);

	us = socket(AF_INET, SOCK_DGRAM, 0);
	if (us < 0 || bind(us, (struct sockaddr *)&usrv, sizeof(usrv)))
		die("udp bind");
	uc = socket(AF_INET, SOCK_DGRAM, 0);
	if (uc < 0 || connect(uc, (struct sockaddr *)&usrv, sizeof(usrv)))
		die("udp connect");
	printf("guest udp_client_port %d\n", local_port(uc));
	if (send(uc, "ping", 4, 0) != 4)
		die("udp send");
	n = recv(us, buf, sizeof(buf), 0);
	printf("guest udp_received %zd\n", n);
	unconnect(uc);
	close(uc);
	close(us);
	fflush(stdout);
	return 0;
}
