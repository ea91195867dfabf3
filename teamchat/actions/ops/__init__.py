"""Running the server: changes other processes made, health, backups."""
