"""Integrations that talk to other services: outgoing webhooks (bots served elsewhere)."""
