package main

// The shapes of load: closed loops (each client sends its next request
// when the last is answered), open loops (requests at a fixed rate,
// latency counted from when each was due, so a stall shows in full), and
// a fixed amount of work shared by the clients.

import (
	"context"
	"sync"
	"time"
)

// closedLoop runs op on every client for d and returns the requests
// answered per second and every request's latency.
func closedLoop(ctx context.Context, clients []client, d time.Duration, op func(ctx context.Context, w int, cl client, i int) error) (float64, []time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		lats  []time.Duration
		first error
	)
	start := time.Now()
	deadline := start.Add(d)
	for w, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, 1024)
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				t := time.Now()
				err := op(ctx, w, cl, i)
				if err == errNothingToDo {
					break
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					break
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if first == nil {
		first = ctx.Err()
	}
	return float64(len(lats)) / elapsed.Seconds(), lats, first
}

type nothingToDo struct{}

func (nothingToDo) Error() string { return "nothing to do" }

// errNothingToDo ends one client's closed loop early.
var errNothingToDo error = nothingToDo{}

// openLoop sends n requests at rate per second over the clients. Each
// latency is from when the request was due to its answer; acked is called
// with each request's index as it is answered.
func openLoop(ctx context.Context, clients []client, rate, n int, op func(ctx context.Context, cl client, i int) error, acked func(i int)) ([]time.Duration, error) {
	jobs := make(chan int, n)
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	due := func(i int) time.Time { return start.Add(time.Duration(i) * interval) }
	go func() {
		defer close(jobs)
		for i := 0; i < n; {
			if wait := time.Until(due(i)); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
			for now := time.Now(); i < n && !due(i).After(now); i++ {
				jobs <- i
			}
		}
	}()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	lats := make([]time.Duration, n)
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := op(ctx, cl, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				lats[i] = time.Since(due(i))
				acked(i)
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return lats, first
}

// each runs op for 0..n-1, op(i) on client i mod len(clients), and
// returns the operations per second.
func each(ctx context.Context, clients []client, n int, op func(ctx context.Context, cl client, i int) error) (float64, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for w, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && ctx.Err() == nil; i += len(clients) {
				if err := op(ctx, cl, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return float64(n) / time.Since(start).Seconds(), first
}
