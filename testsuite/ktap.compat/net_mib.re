^packet: proto TCP, 127\.0\.0\.1:[0-9]+ -> 127\.0\.0\.1:5555, key 7 0$
^as sent: 127\.0\.0\.1:[0-9]+ -> 127\.0\.0\.1:5555$
^client socket: INET 127\.0\.0\.1:[0-9]+ -> 127\.0\.0\.1:5555, state 1, keys 3 4$
^inet_get: 127\.0\.0\.1$
^server socket: INET6, local ::ffff:127\.0\.0\.1 port 5555$
^the client's port: the same in the packet and the socket$
