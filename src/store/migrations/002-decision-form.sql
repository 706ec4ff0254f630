-- A learned decision's form (memory/form.ts, index format 4): the call with the words the catalogue marks as
-- free abstracted, what an approval generalizes over. Without it a decision learned on one machine
-- generalized there but not on the others. Null where the call had none (an MCP call, a command the catalogue
-- does not account for). Sanitized before it is sent, like the subject; checked again on the way in: a form
-- that is not a form of its row's subject is dropped (store/postgres.ts).
ALTER TABLE decisions ADD COLUMN form text;
