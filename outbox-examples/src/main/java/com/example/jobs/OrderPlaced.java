package com.example.jobs;

/** The job service's own view of the event: the fields it reads (the others are ignored). */
public record OrderPlaced(long orderId, String customer) {}
