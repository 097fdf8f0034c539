-- Rotated refresh tokens (OneDrive): Microsoft's identity platform sends a new refresh token with every grant, and the
-- first one lapses 90 days after it was issued however often it is used. The worker that refreshes an account's
-- access token stores the new refresh token (sealed) in the same transaction, so it may now write that column too.
GRANT UPDATE (refresh_token_sealed) ON ferry.accounts TO ferry_worker;
