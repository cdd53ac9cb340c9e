// Contracts of the notifications service (POST /register, GET/DELETE /events, typing, push).
export {};
