"""``make run``: the whole Go Learning Buddy system on one machine (see ``__main__``)."""
