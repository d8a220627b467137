^EVENT   UID   PID    COMM             LOCAL                        REMOTE$
^connect 0 +[0-9]+ +nc +127\.0\.0\.1:([0-9]+) +127\.0\.0\.1:5555$
^accept  0 +[0-9]+ +nc +::ffff:127\.0\.0\.1:5555 +::ffff:127\.0\.0\.1:[0-9]+$
