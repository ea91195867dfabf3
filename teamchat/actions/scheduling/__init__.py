"""Messages that wait for their time: scheduled messages ("send later"), reminders, and the
server task that delivers them."""
