"""Working a server: its tools, resources, templates and prompts listed (following pagination), called, read
and completed through a session, for the window's explorer and the one-shot commands alike."""
