"""The benchmark suite (``make bench``): engine, service, memory and watch-stream figures.

Never part of ``make test``: the numbers depend on the machine. Every figure is printed beside
a baseline measured in the same run (pokerkit, a bare trick loop, a bare gRPC echo server), as
medians of several repetitions, because the machines this runs on are small and noisy.
"""
