package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/warning"
)

type warningsRequest struct {
	Warnings []string `json:"warnings"`
}

type warningsAnswer struct {
	Warnings []string `json:"warnings"`
}

// handleClientWarnings passes a request's warnings through the API server's warning recorder
// (endpoints/filters/warning.go) and reads back the Warning headers a client receives: duplicates
// dropped, texts with control characters dropped, texts truncated once their total passes 4 Ki runes.
func handleClientWarnings(raw json.RawMessage) (any, error) {
	request, err := decode[warningsRequest](raw)
	if err != nil {
		return nil, err
	}
	handler := filters.WithWarningRecorder(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		for _, text := range request.Warnings {
			warning.AddWarning(r.Context(), "", text)
		}
	}))
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodPost, "/", nil))
	headers, _ := utilnet.ParseWarningHeaders(recorder.Header().Values("Warning"))
	answer := warningsAnswer{Warnings: []string{}}
	for _, header := range headers {
		answer.Warnings = append(answer.Warnings, header.Text)
	}
	return answer, nil
}
