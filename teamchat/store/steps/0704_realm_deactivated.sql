-- A deactivated organization answers every authenticated request with REALM_DEACTIVATED.
ALTER TABLE realm ADD COLUMN deactivated INTEGER NOT NULL DEFAULT 0 CHECK (deactivated IN (0, 1));
