//! The handlers' extractors: axum's `Json`, `Path` and `Query`, whose rejection is the app's
//! JSON error ([`AppError`], a `400` that says what was wrong, or a `413`), so no handler
//! unpacks a rejection by hand. And [`Mount`]: the router mounts each endpoint of the contract
//! (`app::contract::endpoints`) at its own method and route.

use app::contract::endpoints::{Endpoint, Method};
use axum::extract::{FromRequest, FromRequestParts, OptionalFromRequest, Request};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::routing::{on, MethodFilter};
use axum::Router;
use serde::de::DeserializeOwned;

use crate::error::AppError;

/// A JSON body of `T`; absent (`Option<AppJson<T>>`) only without a `Content-Type`.
pub struct AppJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for AppJson<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let axum::Json(v) = <axum::Json<T> as FromRequest<S>>::from_request(req, state).await?;
        Ok(AppJson(v))
    }
}

impl<T: DeserializeOwned, S: Send + Sync> OptionalFromRequest<S> for AppJson<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Option<Self>, AppError> {
        let v = <axum::Json<T> as OptionalFromRequest<S>>::from_request(req, state).await?;
        Ok(v.map(|axum::Json(v)| AppJson(v)))
    }
}

/// The route's parameters as `T`.
pub struct AppPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for AppPath<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let axum::extract::Path(v) =
            axum::extract::Path::<T>::from_request_parts(parts, state).await?;
        Ok(AppPath(v))
    }
}

/// The query string as `T`.
pub struct AppQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for AppQuery<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let axum::extract::Query(v) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(AppQuery(v))
    }
}

/// Mounts an endpoint of the contract: its method at its route.
pub trait Mount<S> {
    fn at<E: Endpoint, H: Handler<T, S>, T: 'static>(self, handler: H) -> Self;
}

impl<S: Clone + Send + Sync + 'static> Mount<S> for Router<S> {
    fn at<E: Endpoint, H: Handler<T, S>, T: 'static>(self, handler: H) -> Self {
        let filter = match E::METHOD {
            Method::Get => MethodFilter::GET,
            Method::Post => MethodFilter::POST,
            Method::Put => MethodFilter::PUT,
            Method::Delete => MethodFilter::DELETE,
        };
        self.route(E::ROUTE, on(filter, handler))
    }
}
