-- The organization description is Markdown; clients are served its rendered, sanitized HTML
-- (like channel descriptions). Existing descriptions become one escaped paragraph until
-- the next edit renders them properly.

ALTER TABLE realm ADD COLUMN rendered_description TEXT NOT NULL DEFAULT '';
UPDATE realm
SET rendered_description = '<p>' || replace(replace(replace(replace(replace(
        description, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#x27;')
    || '</p>'
WHERE description <> '';
