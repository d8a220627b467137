/* ptypair - a pseudo-terminal exchange for the tests of the tty.*
 * aliases, with what they should see printed as "guest KEY VALUE":
 * opens /dev/ptmx and its slave, sets the slave's window to 24x80
 * (TIOCSWINSZ, 640x384 pixels), then to 50x132, writes "hi\n" to the
 * master (the slave's input), polls and reads the slave, writes "ok\n"
 * to the slave, and closes both.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(void)
{
	struct winsize a = { .ws_row = 24, .ws_col = 80, .ws_xpixel = 640, .ws_ypixel = 384 };
	struct winsize b = { .ws_row = 50, .ws_col = 132, .ws_xpixel = 1056, .ws_ypixel = 800 };
	struct pollfd p;
	struct stat st;
	char buf[16];
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		die("ptmx");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0 || fstat(s, &st))
		die("pts");
	printf("guest pts_ino %lu\n", (unsigned long)st.st_ino);
	printf("guest pts_name pts%s\n", ptsname(m) + 9);	/* after "/dev/pts/" */
	if (ioctl(s, TIOCSWINSZ, &a) || ioctl(s, TIOCSWINSZ, &b))
		die("TIOCSWINSZ");
	if (write(m, "hi\n", 3) != 3)
		die("write master");
	p.fd = s;
	p.events = POLLIN;
	if (poll(&p, 1, 5000) != 1)
		die("poll");
	printf("guest read %zd\n", read(s, buf, sizeof(buf)));
	if (write(s, "ok\n", 3) != 3)
		die("write slave");
	close(s);
	close(m);
	fflush(stdout);
	return 0;
}
