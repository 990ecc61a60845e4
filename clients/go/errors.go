package crdstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Reasons of failed calls, as Kubernetes names them: every reason the server
// sends (crdstore::error::Reason::ALL; tests/tidy.rs checks this list against
// it). Each is an error that errors.Is matches against a *StatusError of that
// reason:
//
//	if errors.Is(err, crdstore.ErrConflict) { ... }
var (
	ErrNotFound              = &StatusError{Reason: "NotFound"}
	ErrAlreadyExists         = &StatusError{Reason: "AlreadyExists"}
	ErrConflict              = &StatusError{Reason: "Conflict"}
	ErrInvalid               = &StatusError{Reason: "Invalid"}
	ErrBadRequest            = &StatusError{Reason: "BadRequest"}
	ErrExpired               = &StatusError{Reason: "Expired"}
	ErrForbidden             = &StatusError{Reason: "Forbidden"}
	ErrMethodNotAllowed      = &StatusError{Reason: "MethodNotAllowed"}
	ErrUnsupportedMediaType  = &StatusError{Reason: "UnsupportedMediaType"}
	ErrNotAcceptable         = &StatusError{Reason: "NotAcceptable"}
	ErrRequestEntityTooLarge = &StatusError{Reason: "RequestEntityTooLarge"}
	ErrTooManyRequests       = &StatusError{Reason: "TooManyRequests"}
	ErrUnavailable           = &StatusError{Reason: "ServiceUnavailable"}
	ErrTimeout               = &StatusError{Reason: "Timeout"}
	ErrInternal              = &StatusError{Reason: "InternalError"}
)

// Cause is one invalid field: its path as Kubernetes writes it
// (spec.versions[1].name) and what is wrong with it.
type Cause struct {
	Field   string
	Message string
}

// StatusError is a failed call: the Kubernetes reason, the gRPC code, the
// server's message and, for invalid input, one cause per field. Get it
// with errors.As.
type StatusError struct {
	Reason   string
	Code     codes.Code
	Message  string
	Causes   []Cause
	Metadata map[string]string
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return e.Reason
	}
	return e.Message
}

// Is matches the reason sentinels (ErrNotFound, ...).
func (e *StatusError) Is(target error) bool {
	var t *StatusError
	return errors.As(target, &t) && t.Reason == e.Reason && (t.Message == "" || t.Message == e.Message)
}

// FieldConflict is one field a server-side apply would take from another
// manager: its path (.spec.replicas), that manager, and the server's message
// (`conflict with "m1"`, or `conflict with "m1" using v1` for a manager
// that wrote it with an update).
type FieldConflict struct {
	Field   string
	Manager string
	Message string
}

// ApplyConflict is an apply that changed fields other managers own: a
// Conflict (errors.Is(err, ErrConflict) holds, and errors.As finds the
// *StatusError) that lists each field. Apply again with Force to take them
// over, or leave them out of the configuration.
type ApplyConflict struct {
	*StatusError
	Conflicts []FieldConflict
}

// Unwrap is the underlying *StatusError.
func (e *ApplyConflict) Unwrap() error { return e.StatusError }

var conflictManager = regexp.MustCompile(`^conflicts? with ("(?:[^"\\]|\\.)*")`)

// fieldConflicts are the FieldManagerConflict causes of the ErrorInfo's
// "causes" entry.
func fieldConflicts(metadata map[string]string) []FieldConflict {
	var causes []struct{ Reason, Field, Message string }
	if json.Unmarshal([]byte(metadata["causes"]), &causes) != nil {
		return nil
	}
	var out []FieldConflict
	for _, c := range causes {
		if c.Reason != "FieldManagerConflict" {
			continue
		}
		manager := ""
		if m := conflictManager.FindStringSubmatch(c.Message); m != nil {
			manager, _ = strconv.Unquote(m[1])
		}
		out = append(out, FieldConflict{Field: c.Field, Manager: manager, Message: c.Message})
	}
	return out
}

var reasonOfCode = map[codes.Code]string{
	codes.NotFound:         "NotFound",
	codes.AlreadyExists:    "AlreadyExists",
	codes.Aborted:          "Conflict",
	codes.InvalidArgument:  "Invalid",
	codes.OutOfRange:       "Expired",
	codes.PermissionDenied: "Forbidden",
	codes.Unavailable:      "ServiceUnavailable",
}

// reasons the server may send that mean one of the sentinels above.
var sameReason = map[string]string{"Gone": "Expired", "ResourceExpired": "Expired"}

// fromRPC turns a gRPC error into a *StatusError: its reason from the
// google.rpc.ErrorInfo detail, else from the code; its causes from the
// google.rpc.BadRequest detail.
func fromRPC(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	out := &StatusError{Code: st.Code(), Message: st.Message(), Metadata: map[string]string{}}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			out.Reason = d.GetReason()
			for k, v := range d.GetMetadata() {
				out.Metadata[k] = v
			}
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				out.Causes = append(out.Causes, Cause{Field: v.GetField(), Message: v.GetDescription()})
			}
		}
	}
	if same, ok := sameReason[out.Reason]; ok {
		out.Reason = same
	}
	if out.Reason == "" {
		out.Reason = reasonOfCode[st.Code()]
	}
	if out.Reason == "" {
		out.Reason = fmt.Sprintf("Unknown(%s)", st.Code())
	}
	if out.Reason == "Conflict" {
		if conflicts := fieldConflicts(out.Metadata); len(conflicts) > 0 {
			return &ApplyConflict{StatusError: out, Conflicts: conflicts}
		}
	}
	return out
}
