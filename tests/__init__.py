"""The test suite.

gRPC's fork handlers are turned off in the test process, before anything loads gRPC: the
pexpect tests fork this process (which holds gRPC's threads) to start the CLI under a pty, and
with the handlers on, gRPC restarts its poller in the forked child, which then dies (SIGSEGV,
or "epoll_wait error: Bad file descriptor") before it can exec the CLI: about one spawn in ten
while another thread is in a gRPC call. Nothing in the suite uses gRPC across a fork."""

import os

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
