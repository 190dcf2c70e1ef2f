"""``rollhouse soak``: three nodes on a Redis Cluster, many games, faults for minutes.

- :mod:`clients.soak.redis_cluster`: a Redis Cluster of our own (3 masters + 3
  replicas on loopback), also used by the tests;
- :mod:`clients.soak.history`: the checker over a recorded history (acks in the log
  once, no view ahead of the log, one node per fence epoch, rooms finish), also used
  by the fault tests;
- :mod:`clients.soak.track`: what is measured of each game (stalls, failover times);
- :mod:`clients.soak.faults`: the faults drawn; :mod:`clients.soak.run`: the shell;
  :mod:`clients.soak.cli`: the command and its printout.
"""
