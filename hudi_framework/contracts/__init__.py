"""Contracts between the kernel and plugins: what plugins implement, and what the kernel hands them.

Abstract classes and protocols only (the table service host, for one, is implemented by the
kernel and handed to service plugins); no implementations live here.
"""
