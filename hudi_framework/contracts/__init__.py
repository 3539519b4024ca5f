"""Contracts (ABCs) that plugins implement. No implementations live here."""
