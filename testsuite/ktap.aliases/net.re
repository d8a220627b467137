^socket\.create family INET type 1 protocol 0 requester 0$
^socket\.create family INET type 1 protocol 0 requester 0$
^tcp\.receive 127\.0\.0\.1 -> 127\.0\.0\.1:5557 syn 1 ack 0 fin 0 rst 0 psh 0 urg 0 protocol 6$
^tcp\.setsockopt level 6 TCP_NODELAY \(1\) optlen 4 family 2$
^tcp\.setsockopt ret 0$
^socket\.sendmsg TCP size 5$
^tcp\.sendmsg\.return size 5$
^socket\.send TCP size 5 success 1 state CONNECTED$
^socket\.sendmsg\.return size 5 success 1$
^socket\.recvmsg room 64 family 2$
^tcp\.recvmsg room 64 127\.0\.0\.1:5557 <- 127\.0\.0\.1 family 2$
^socket\.receive TCP size 5 success 1$
^socket\.recvmsg\.return size 5 success 1$
^socket\.write_iter TCP size 3$
^socket\.writev TCP size 3$
^socket\.aio_write TCP size 3$
^socket\.sendmsg TCP size 3$
^tcp\.sendmsg\.return size 3$
^socket\.send TCP size 3 success 1 state CONNECTED$
^socket\.sendmsg\.return size 3 success 1$
^socket\.write_iter\.return TCP size 3 success 1$
^socket\.writev\.return TCP size 3 success 1$
^socket\.aio_write\.return TCP size 3 success 1$
^socket\.read_iter TCP room 64$
^socket\.readv TCP room 64$
^socket\.aio_read TCP room 64$
^socket\.recvmsg room 64 family 2$
^tcp\.recvmsg room 64 127\.0\.0\.1:5557 <- 127\.0\.0\.1 family 2$
^socket\.receive TCP size 3 success 1$
^socket\.recvmsg\.return size 3 success 1$
^socket\.read_iter\.return TCP size 3 success 1$
^socket\.readv\.return TCP size 3 success 1$
^socket\.aio_read\.return TCP size 3 success 1$
^socket\.write_iter TCP size 3$
^socket\.writev TCP size 3$
^socket\.aio_write TCP size 3$
^socket\.sendmsg TCP size 3$
^tcp\.sendmsg\.return size 3$
^socket\.send TCP size 3 success 1 state CONNECTED$
^socket\.sendmsg\.return size 3 success 1$
^socket\.write_iter\.return TCP size 3 success 1$
^socket\.writev\.return TCP size 3 success 1$
^socket\.aio_write\.return TCP size 3 success 1$
^socket\.read_iter TCP room 64$
^socket\.readv TCP room 64$
^socket\.aio_read TCP room 64$
^socket\.recvmsg room 64 family 2$
^tcp\.recvmsg room 64 127\.0\.0\.1:5557 <- 127\.0\.0\.1 family 2$
^socket\.receive TCP size 3 success 1$
^socket\.recvmsg\.return size 3 success 1$
^socket\.read_iter\.return TCP size 3 success 1$
^socket\.readv\.return TCP size 3 success 1$
^socket\.aio_read\.return TCP size 3 success 1$
^tcp\.disconnect 127\.0\.0\.1 -> 127\.0\.0\.1:5557 family 2$
^tcp\.disconnect ret 0$
^socket\.close INET TCP$
^socket\.close\.return$
^socket\.close INET TCP$
^socket\.close\.return$
^socket\.close INET TCP$
^socket\.close\.return$
^socket\.create family INET type 2 protocol 0 requester 0$
^socket\.create family INET type 2 protocol 0 requester 0$
^socket\.sendmsg UDP size 4$
^udp\.sendmsg size 4 127\.0\.0\.1 -> 127\.0\.0\.1:5556 family 2$
^udp\.sendmsg size 4$
^socket\.send UDP size 4 success 1 state UNCONNECTED$
^udp\.recvmsg room 64 at 127\.0\.0\.1:5556$
^udp\.recvmsg size 4 at 127\.0\.0\.1:5556$
^socket\.receive UDP size 4 success 1$
^udp\.disconnect 127\.0\.0\.1 -> 127\.0\.0\.1:5556$
^udp\.disconnect ret 0 -> 0\.0\.0\.0:0$
^socket\.close INET UDP$
^socket\.close\.return$
^socket\.close INET UDP$
^socket\.close\.return$
